import type { PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';

/** Bluesky embeds up to 4 images, or one video, per post. */
export const BLUESKY_MAX_IMAGES = 4;

/**
 * Bluesky checks beyond the shared rules (which count each part in graphemes, see text.ts):
 * one video or up to 4 images, in the post and in each follow-up.
 */
export function validateBluesky(draft: PostDraft): Problem[] {
  const problems = oneVideoOrPhotos('bluesky', draft.mediaUrls, BLUESKY_MAX_IMAGES);
  (draft.thread ?? []).forEach((part, index) => {
    for (const problem of oneVideoOrPhotos('bluesky', part.mediaUrls, BLUESKY_MAX_IMAGES)) {
      problems.push({ ...problem, field: `thread[${index}].media_urls` });
    }
  });
  return problems;
}
