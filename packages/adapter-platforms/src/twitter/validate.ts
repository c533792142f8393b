import type { PostDraft, Problem } from '@social-publisher/domain';
import { mediaKindOf, oneVideoOrPhotos } from '../shared/media.ts';

export const X_MAX_IMAGES = 4;

/**
 * X checks beyond the shared rules (which count the content as X does, see text.ts): one
 * video, or up to 4 photos, not both.
 */
export function validateTwitter(draft: PostDraft): Problem[] {
  const problems = oneVideoOrPhotos('twitter', draft.mediaUrls, X_MAX_IMAGES);
  (draft.thread ?? []).forEach((part, index) => {
    const field = `thread[${index}].media_urls`;
    // A follow-up's media are uploaded when it is sent, not resumed like the main post's video.
    if (part.mediaUrls.some((url) => mediaKindOf(url) === 'video')) {
      problems.push({
        field,
        message: 'X follow-ups take photos only (a video goes in the main post)',
      });
    } else if (part.mediaUrls.length > X_MAX_IMAGES) {
      problems.push({ field, message: `X takes at most ${X_MAX_IMAGES} photos per post` });
    }
  });
  return problems;
}
