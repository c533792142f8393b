// Instagram's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { codePointLength } from '../shared/media.ts';

export const INSTAGRAM_CAPTION_MAX = 2200;
export const INSTAGRAM_CAROUSEL_MIN = 2;
export const INSTAGRAM_CAROUSEL_MAX = 10;

/** Instagram checks beyond the shared rules (which require media): carousel size, caption length. */
export function validateInstagram(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  if (draft.mediaUrls.length > INSTAGRAM_CAROUSEL_MAX) {
    problems.push({
      field: 'media_urls',
      message: `an instagram carousel takes ${INSTAGRAM_CAROUSEL_MIN} to ${INSTAGRAM_CAROUSEL_MAX} items`,
    });
  }
  if (codePointLength(draft.content) > INSTAGRAM_CAPTION_MAX) {
    problems.push({
      field: 'content',
      message: `instagram captions are limited to ${INSTAGRAM_CAPTION_MAX} characters`,
    });
  }
  return problems;
}
