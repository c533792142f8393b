import type { PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';

export const X_MAX_IMAGES = 4;

/**
 * X checks beyond the shared rules (which count the content as X does, see text.ts): one
 * video, or up to 4 photos, not both.
 */
export function validateTwitter(draft: PostDraft): Problem[] {
  return oneVideoOrPhotos('twitter', draft.mediaUrls, X_MAX_IMAGES);
}
