// A video Pin's media: registered (POST /v5/media), its bytes streamed to the storage service's
// upload URL, then processed; stored once uploaded so a resume polls instead of uploading again.
import { discard } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import type { PinterestRun } from './run.ts';

/** The video's media id, once Pinterest has processed it. */
export async function uploadVideo(run: PinterestRun, url: string): Promise<string> {
  const { mediaId, pollStartedAt } = run.progress.video ?? (await sendVideo(run, url));
  await awaitProcessing(run, mediaId, pollStartedAt);
  return mediaId;
}

/** Registration, then the bytes; stored as soon as they are uploaded. */
async function sendVideo(run: PinterestRun, url: string) {
  const { request, progress } = run;
  // Registration creates nothing visible: after a failed upload the next run registers
  // again (the upload URL's signed policy may have expired meanwhile).
  const upload = await run.auth.call((token) => run.api.registerVideo(token));
  const body = await run.media.whole(url);
  try {
    await run.api.uploadVideo(upload, body);
  } finally {
    discard(body.body);
  }
  const video = { mediaId: upload.mediaId, pollStartedAt: Date.now() };
  progress.video = video;
  await request.saveProgress({ ...progress, video: { ...video } } as never);
  return video;
}

/** The media's status until succeeded (or failed), within the polling bound. */
async function awaitProcessing(run: PinterestRun, mediaId: string, pollStartedAt: number) {
  const { runtime, auth, api } = run;
  await pollUntil<true>({
    runtime,
    startedAt: pollStartedAt,
    signal: run.request.signal,
    what: `Pinterest video ${mediaId}`,
    check: async () => {
      const status = await auth.call((token) => api.mediaStatus(token, mediaId));
      if (status === 'succeeded') return true;
      if (status === 'failed') {
        throw fail(
          'video_processing_failed',
          `Pinterest could not process video ${mediaId} (status failed)`,
          false,
        );
      }
      return undefined; // registered, processing
    },
  });
}
