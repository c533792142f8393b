// Google Business Profile checks of a post beyond the shared rules (which bound the summary to
// 1,500 characters and refuse videos): one photo at most.
import type { PostDraft, Problem } from '@social-publisher/domain';

/** A local post shows one photo (its `media` of one PHOTO item). */
export const GOOGLE_BUSINESS_MAX_PHOTOS = 1;

export function validateGoogleBusiness(draft: PostDraft): Problem[] {
  if (draft.mediaUrls.length <= GOOGLE_BUSINESS_MAX_PHOTOS) return [];
  return [{ field: 'media_urls', message: 'google_business takes at most one photo per post' }];
}
