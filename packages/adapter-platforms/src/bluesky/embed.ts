// The media of a Bluesky post as its embed: up to 4 images or one video, each uploaded as a
// blob streamed from its URL (not kept: uploading again creates nothing visible).
import { mediaKindOf } from '../shared/media.ts';
import { capped, discard } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import type { BlobRef } from './api.ts';
import type { BlueskyRun } from './run.ts';
import { mapped } from './xrpc.ts';

/** Bluesky refuses an image blob over 1,000,000 bytes. */
export const BLUESKY_MAX_IMAGE_BYTES = 1_000_000;
/** And a video over 100 MB. */
export const BLUESKY_MAX_VIDEO_BYTES = 100_000_000;

/** The embed of a post's media: up to 4 images, or one video; none without media. */
export async function embedOf(
  run: BlueskyRun,
  urls: readonly string[],
): Promise<Record<string, unknown> | undefined> {
  if (urls.length === 0) return undefined;
  if (urls.some((url) => mediaKindOf(url) === 'video')) {
    const url = urls[0];
    if (url === undefined || urls.length > 1) {
      throw fail('invalid_params', 'Bluesky takes one video per post, without images', false);
    }
    const video = await upload(run, url, BLUESKY_MAX_VIDEO_BYTES, 'video/mp4');
    return { $type: 'app.bsky.embed.video', video };
  }
  const images: { alt: string; image: BlobRef }[] = [];
  for (const url of urls) {
    images.push({ alt: '', image: await upload(run, url, BLUESKY_MAX_IMAGE_BYTES) });
  }
  return { $type: 'app.bsky.embed.images', images };
}

/**
 * One blob, streamed from its URL (fetched again when a refreshed token retries it). A
 * video served without a video type is sent as `fallbackType` (Bluesky keys on the type).
 */
function upload(run: BlueskyRun, url: string, max: number, fallbackType?: string) {
  return run.auth.call(async (token) => {
    const fetched = await run.media.whole(url);
    const file =
      fallbackType && !fetched.contentType.startsWith('video/')
        ? { ...fetched, contentType: fallbackType }
        : fetched;
    try {
      const body = capped(file, max, () => tooLarge(url, max));
      return await mapped('uploadBlob', () => run.api.uploadBlob(token, body));
    } finally {
      discard(file.body);
    }
  });
}

const tooLarge = (url: string, max: number) =>
  fail('media_too_large', `media ${url} is larger than ${max} bytes, Bluesky's limit`, false);
