// LinkedIn's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';

export const LINKEDIN_MAX_IMAGES = 20;

/**
 * LinkedIn checks beyond the shared rules (content length is the descriptor's 3000): one kind
 * of media, one video, 1 to 20 images (2+ make a multi-image post).
 */
export function validateLinkedin(draft: PostDraft): Problem[] {
  return oneVideoOrPhotos('linkedin', draft.mediaUrls, LINKEDIN_MAX_IMAGES);
}
