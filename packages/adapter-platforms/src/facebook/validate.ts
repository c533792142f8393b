// Facebook's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';

export const FACEBOOK_MAX_PHOTOS = 10;

/** Facebook checks beyond the shared rules: one video, or up to 10 photos, not both. */
export function validateFacebook(draft: PostDraft): Problem[] {
  return oneVideoOrPhotos('facebook', draft.mediaUrls, FACEBOOK_MAX_PHOTOS);
}
