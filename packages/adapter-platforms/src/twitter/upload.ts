// The media of an X post: images in one request each, a video in segments (initialize, append
// by range, finalize, processing), each stored in the progress as it finishes so a resume
// reuses it.
import { setTimeout as sleep } from 'node:timers/promises';
import { mediaKindOf } from '../shared/media.ts';
import { capped, discard } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import type { MediaProcessing } from './api.ts';
import { noteExpiry, type VideoProgress } from './progress.ts';
import type { XRun } from './run.ts';

/** X takes images up to 5 MB in one request (streamed from the media URL, not held). */
export const X_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Video segments: each read from the media URL by range and streamed into its append. */
export const X_SEGMENT_BYTES = 4 * 1024 * 1024;

/** The main post's media ids: one video, or its images in order. */
export async function uploadMedia(run: XRun, urls: readonly string[]): Promise<string[]> {
  if (urls.some((url) => mediaKindOf(url) === 'video')) {
    const url = urls[0];
    if (url === undefined || urls.length > 1) {
      throw fail('invalid_params', 'X takes one video per post, without photos', false);
    }
    return [await uploadVideo(run, url)];
  }
  const mediaIds: string[] = [];
  for (const [index, url] of urls.entries()) mediaIds.push(await uploadImage(run, url, index));
  return mediaIds;
}

/** Image `index` of the main post, uploaded once (its id and expiry stored). */
async function uploadImage(run: XRun, url: string, index: number): Promise<string> {
  const { progress } = run;
  const done = progress.images[index];
  if (done) return done;
  const uploaded = await sendImage(run, url);
  progress.images[index] = uploaded.id;
  noteExpiry(progress, uploaded.expiresAt);
  await run.save();
  return uploaded.id;
}

/** One image, streamed from its URL (a follow-up's are not kept: uploading posts nothing). */
export function sendImage(run: XRun, url: string) {
  // Fetched again for a retried call (a refreshed token): a stream is read once.
  return run.auth.call(async (token) => {
    const image = await run.media.whole(url);
    try {
      return await run.api.uploadImage(
        token,
        capped(image, X_MAX_IMAGE_BYTES, () => tooLarge(url)),
      );
    } finally {
      discard(image.body);
    }
  });
}

/** initialize, each segment by range (resumable), finalize, then processing. */
async function uploadVideo(run: XRun, url: string): Promise<string> {
  const video = run.progress.video ?? (await initializeVideo(run, url));
  if (!video.finalized) {
    await appendSegments(run, url, video);
    const processing = await run.auth.call((token) => run.api.finalizeVideo(token, video.mediaId));
    video.finalized = true;
    video.pollStartedAt = Date.now();
    await run.save();
    if (processing.state === 'none' || processing.state === 'succeeded') return video.mediaId;
    if (processing.state === 'failed') throw processingFailed(video.mediaId, processing);
    await waitAsAsked(run, processing.checkAfterSecs, video.pollStartedAt);
  }
  await awaitProcessing(run, video);
  return video.mediaId;
}

/** INIT: the video's media id, stored with its size before any byte is sent. */
async function initializeVideo(run: XRun, url: string): Promise<VideoProgress> {
  const info = await run.media.probe(url);
  const type = info.contentType.startsWith('video/') ? info.contentType : 'video/mp4';
  const uploaded = await run.auth.call((token) =>
    run.api.initializeVideo(token, info.totalBytes, type),
  );
  const video: VideoProgress = {
    mediaId: uploaded.id,
    totalBytes: info.totalBytes,
    segmentsDone: 0,
    finalized: false,
    pollStartedAt: null,
  };
  run.progress.video = video;
  noteExpiry(run.progress, uploaded.expiresAt);
  await run.save();
  return video;
}

/** The segments not appended yet, each read by range and stored once X has it. */
async function appendSegments(run: XRun, url: string, video: VideoProgress): Promise<void> {
  const segments = Math.ceil(video.totalBytes / X_SEGMENT_BYTES);
  for (let index = video.segmentsDone; index < segments; index++) {
    const first = index * X_SEGMENT_BYTES;
    const last = Math.min(video.totalBytes, first + X_SEGMENT_BYTES) - 1;
    await run.auth.call(async (token) => {
      const part = await run.media.range(url, first, last, video.totalBytes);
      try {
        return await run.api.appendSegment(token, video.mediaId, index, part);
      } finally {
        discard(part.body);
      }
    });
    video.segmentsDone = index + 1;
    await run.save();
  }
}

/** STATUS until X says the video is ready (or failed), within the polling bound. */
async function awaitProcessing(run: XRun, video: VideoProgress): Promise<void> {
  const { runtime, auth, api } = run;
  const startedAt = video.pollStartedAt ?? Date.now();
  await pollUntil<true>({
    runtime,
    startedAt,
    signal: run.request.signal,
    what: `X video ${video.mediaId}`,
    check: async () => {
      const status = await auth.call((token) => api.mediaStatus(token, video.mediaId));
      if (status.state === 'succeeded' || status.state === 'none') return true;
      if (status.state === 'failed') throw processingFailed(video.mediaId, status);
      // pending, in_progress: pollUntil waits its own interval on top of this.
      await waitAsAsked(run, status.checkAfterSecs, startedAt, runtime.pollIntervalMs);
      return undefined;
    },
  });
}

/**
 * X says when to look at a processing video again (check_after_secs): asking sooner only
 * spends requests of the 15-minute window. Never past the polling deadline, where pollUntil
 * gives up.
 */
async function waitAsAsked(
  run: XRun,
  checkAfterSecs: number | null,
  startedAt: number,
  alreadyMs = 0,
): Promise<void> {
  const wantedMs = (checkAfterSecs ?? 0) * 1000 - alreadyMs;
  const leftMs = startedAt + run.runtime.pollTimeoutMs - Date.now();
  const waitMs = Math.min(wantedMs, leftMs);
  if (waitMs > 0) await sleep(waitMs, undefined, { signal: run.request.signal });
}

const processingFailed = (mediaId: string, status: MediaProcessing) =>
  fail(
    'video_processing_failed',
    `X could not process video ${mediaId}: ${status.error ?? 'failed'}`,
    false,
  );

const tooLarge = (url: string) =>
  fail(
    'media_too_large',
    `media ${url} is larger than ${X_MAX_IMAGE_BYTES} bytes, X's limit`,
    false,
  );
