/**
 * Child process of the upload benchmark: the fake YouTube API and the media server, so that
 * their memory and CPU are not counted in the uploader's RSS.
 */
import { startFakeYoutube, startMediaServer } from '@social-publisher/testkit';
import { onParentMessage, toParent } from '../lib/child.ts';

const youtube = await startFakeYoutube();
const media = await startMediaServer();

onParentMessage((message) => {
  if (message.type === 'media-url') {
    toParent({ type: 'media-url', url: media.url(String(message.name), Number(message.size)) });
  } else if (message.type === 'sessions') {
    toParent({
      type: 'sessions',
      sessions: youtube.sessions.map((session) => ({
        id: session.id,
        totalBytes: session.totalBytes,
        receivedBytes: session.receivedBytes,
        patternOk: session.patternOk,
        uploads: session.uploads,
        videoId: session.videoId,
      })),
    });
  }
});

toParent({ type: 'ready', youtube: youtube.baseUrl, media: media.baseUrl });
