// The media of a LinkedIn post: images (initializeUpload, then the bytes) and a multi-part
// video (initializeUpload, each part by range, finalizeUpload, processing), each stored in the
// progress as it finishes so a resume reuses it.
import { mediaKindOf } from '../shared/media.ts';
import { discard } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import type { VideoPart } from './api.ts';
import type { VideoProgress } from './progress.ts';
import type { LinkedinRun } from './run.ts';

/** The post's `content`: one video, one image, several images (multiImage), or none. */
export async function uploadContent(
  run: LinkedinRun,
  urls: readonly string[],
): Promise<Record<string, unknown> | undefined> {
  if (urls.some((url) => mediaKindOf(url) === 'video')) {
    const url = urls[0];
    if (url === undefined || urls.length > 1) {
      throw fail('invalid_params', 'LinkedIn takes one video per post, without photos', false);
    }
    return { media: { id: await uploadVideo(run, url) } };
  }
  if (urls.length === 0) return undefined;
  const ids: string[] = [];
  for (const [index, url] of urls.entries()) ids.push(await uploadImage(run, url, index));
  return ids.length === 1
    ? { media: { id: ids[0] } }
    : { multiImage: { images: ids.map((id) => ({ id })) } };
}

/** One image: initializeUpload, then its bytes streamed from the media URL. */
async function uploadImage(run: LinkedinRun, url: string, index: number): Promise<string> {
  const { api, author, progress } = run;
  const done = progress.images[index];
  if (done) return done;
  const image = await run.auth.call(async (token) => {
    const { uploadUrl, image } = await api.initializeImage(token, author);
    const body = await run.media.whole(url);
    try {
      await api.uploadImage(token, uploadUrl, body, author);
    } finally {
      discard(body.body);
    }
    return image;
  });
  progress.images[index] = image;
  await run.save();
  return image;
}

/** The video: initializeUpload, each part streamed by range, finalizeUpload, processing. */
async function uploadVideo(run: LinkedinRun, url: string): Promise<string> {
  const video = run.progress.video ?? (await initializeVideo(run, url));
  if (!video.finalized) {
    await sendParts(run, url, video);
    const etags = video.etags.filter((etag): etag is string => etag !== null);
    await run.auth.call((token) => run.api.finalizeVideo(token, video, etags, run.author));
    video.finalized = true;
    video.pollStartedAt = Date.now();
    await run.save();
  }
  await awaitProcessing(run, video);
  return video.video;
}

/** initializeUpload: the video URN and its parts, stored before any byte is sent. */
async function initializeVideo(run: LinkedinRun, url: string): Promise<VideoProgress> {
  const totalBytes = await run.media.size(url);
  const upload = await run.auth.call((token) =>
    run.api.initializeVideo(token, run.author, totalBytes),
  );
  const video: VideoProgress = {
    ...upload,
    totalBytes,
    etags: upload.parts.map(() => null),
    finalized: false,
    pollStartedAt: null,
  };
  run.progress.video = video;
  await run.save();
  return video;
}

/** The parts not sent yet, each read by range and its ETag stored. */
async function sendParts(run: LinkedinRun, url: string, video: VideoProgress): Promise<void> {
  for (const [index, part] of video.parts.entries()) {
    if (video.etags[index]) continue;
    video.etags[index] = await run.auth.call((token) => sendPart(run, token, url, part, video));
    await run.save();
  }
}

async function sendPart(
  run: LinkedinRun,
  token: string,
  url: string,
  part: VideoPart,
  video: VideoProgress,
) {
  const body = await run.media.range(url, part.firstByte, part.lastByte, video.totalBytes);
  try {
    return await run.api.uploadVideoPart(token, part, body, run.author);
  } finally {
    discard(body.body);
  }
}

/** The video's status until AVAILABLE (or PROCESSING_FAILED), within the polling bound. */
async function awaitProcessing(run: LinkedinRun, video: VideoProgress): Promise<void> {
  const { runtime, auth, api } = run;
  await pollUntil<true>({
    runtime,
    startedAt: video.pollStartedAt ?? Date.now(),
    signal: run.request.signal,
    what: `LinkedIn video ${video.video}`,
    check: async () => {
      const status = await auth.call((token) => api.videoStatus(token, video.video));
      if (status === 'AVAILABLE') return true;
      if (status === 'PROCESSING_FAILED') {
        throw fail(
          'video_processing_failed',
          `LinkedIn could not process video ${video.video} (PROCESSING_FAILED)`,
          false,
        );
      }
      return undefined; // PROCESSING, WAITING_UPLOAD
    },
  });
}
