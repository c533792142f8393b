import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import { googleRefresher } from '../google/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { type CommentSender, publishWithFirstComment } from '../shared/first-comment.ts';
import { firstLine, truncateCodePoints } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { optionsOf, stringOption } from '../shared/options.ts';
import { fail, runPublish } from '../shared/outcome.ts';
import { createYoutubeApi, type MediaInfo, type SessionState } from './api.ts';
import type { YoutubeSettings } from './settings.ts';
import { validateYoutube, YOUTUBE_TITLE_MAX } from './validate.ts';

/** PUTs of the remaining bytes in one run before giving up (retryable) on a server that keeps fewer. */
const MAX_UPLOAD_ROUNDS = 3;

/** Saved once the session exists, before any byte is sent. */
interface YoutubeProgress {
  sessionUrl: string;
  totalBytes: number;
  contentType: string;
}

export function createYoutubePublisher(
  config: YoutubeSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = googleRefresher(config, runtime, 'YouTube');

  /** Creates a resumable session, stores it, then streams the whole media into it. */
  async function startFresh(request: PublishRequest, auth: AuthSession, restarted: boolean) {
    const mediaUrl = request.post.mediaUrls[0];
    if (mediaUrl === undefined) throw fail('invalid_params', 'YouTube needs a video URL', false);
    const api = createYoutubeApi(config, runtime, request.signal);
    const media = await api.probeMedia(mediaUrl);
    await request.beforeCountedCall();
    const sessionUrl = await auth.call((token) =>
      api.startSession(token, media, videoMetadata(request)),
    );
    const progress: YoutubeProgress = { sessionUrl, ...media };
    await request.saveProgress({ ...progress });
    return transfer(request, auth, progress, 0, restarted);
  }

  /**
   * Sends the bytes YouTube does not hold yet. `knownOffset` is 0 right after the session was
   * created; otherwise (resume, second round, after a token refresh) the session is asked first
   * with `Content-Range: bytes *\/total`.
   */
  async function transfer(
    request: PublishRequest,
    auth: AuthSession,
    progress: YoutubeProgress,
    knownOffset: number | null,
    restarted: boolean,
  ): Promise<PublishOutcome> {
    const mediaUrl = request.post.mediaUrls[0];
    if (mediaUrl === undefined) throw fail('invalid_params', 'YouTube needs a video URL', false);
    const api = createYoutubeApi(config, runtime, request.signal);
    let offset = knownOffset;
    for (let round = 0; round < MAX_UPLOAD_ROUNDS; round++) {
      const state: SessionState = await auth.call(async (token) => {
        const from = offset;
        offset = null; // whatever happens next, the following attempt asks the session first
        if (from === null) {
          const current = await api.querySession(token, progress.sessionUrl, progress.totalBytes);
          if (current.kind !== 'incomplete') return current;
          return api.upload(token, progress.sessionUrl, mediaUrl, progress, current.next);
        }
        return api.upload(token, progress.sessionUrl, mediaUrl, progress, from);
      });
      if (state.kind === 'complete') {
        return {
          kind: 'published',
          platformPostId: state.videoId,
          platformUrl: `https://www.youtube.com/watch?v=${state.videoId}`,
        };
      }
      if (state.kind === 'gone') {
        // The session expired before the upload completed, so no video exists: a new session is
        // the only way on (the one case where a second session is created).
        if (restarted) {
          throw fail('upload_session_expired', 'YouTube upload session expired twice', true);
        }
        return startFresh(request, auth, true);
      }
      offset = state.next; // 308 after a full PUT: YouTube kept fewer bytes; send the rest
    }
    throw fail(
      'upload_incomplete',
      `YouTube still misses bytes of ${progress.sessionUrl} after ${MAX_UPLOAD_ROUNDS} uploads`,
      true,
    );
  }

  /** The first comment: a top-level comment on the uploaded video. */
  const sendComment: CommentSender = (request, videoId, text) => {
    const api = createYoutubeApi(config, runtime, request.signal);
    const auth = new AuthSession(request, refresher, 'YouTube');
    return auth.call((token) => api.insertComment(token, videoId, text));
  };
  const withComment = (request: PublishRequest, main: () => Promise<PublishOutcome>) =>
    publishWithFirstComment('YouTube', request, sendComment, main);

  return {
    platform: 'youtube',
    validate: validateYoutube,
    publish: (request) =>
      runPublish(request.signal, () =>
        withComment(request, () =>
          startFresh(request, new AuthSession(request, refresher, 'YouTube'), false),
        ),
      ),
    resume: (request) =>
      runPublish(request.signal, () =>
        withComment(request, async () => {
          const auth = new AuthSession(request, refresher, 'YouTube');
          const progress = readProgress(request.target.resumeState);
          if (progress === null) return startFresh(request, auth, false);
          return transfer(request, auth, progress, null, false);
        }),
      ),
  };
}

/** The video resource sent when the session starts. */
export function videoMetadata(request: PublishRequest): unknown {
  const content = request.post.content;
  const options = optionsOf(request.post.platformOptions, 'youtube');
  return {
    snippet: {
      title: youtubeTitle(content),
      description: content,
      // "People & Blogs", the category of YouTube's own upload samples (unconfirmed whether
      // YouTube requires one on insert).
      categoryId: '22',
    },
    status: { privacyStatus: stringOption(options, 'privacyStatus') ?? 'private' },
  };
}

/** First line of the content, trimmed, cut to 100 characters; 'Untitled' when empty. */
export const youtubeTitle = (content: string): string =>
  truncateCodePoints(firstLine(content), YOUTUBE_TITLE_MAX).trim() || 'Untitled';

function readProgress(state: Record<string, unknown> | null): YoutubeProgress | null {
  const sessionUrl = state?.sessionUrl;
  const totalBytes = state?.totalBytes;
  if (typeof sessionUrl !== 'string' || typeof totalBytes !== 'number') return null;
  const contentType = state?.contentType;
  const media: MediaInfo = {
    totalBytes,
    contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream',
  };
  return { sessionUrl, ...media };
}
