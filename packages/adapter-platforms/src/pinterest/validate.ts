// Pinterest's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';
import { boardIdOf } from './options.ts';

/** A carousel Pin takes 2 to 5 images. */
export const PINTEREST_MAX_IMAGES = 5;

/**
 * Pinterest checks beyond the shared rules (which require media and bound the description to
 * 500 characters): a board to save the Pin to, one video or 1 to 5 images.
 */
export function validatePinterest(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  if (boardIdOf(draft.platformOptions) === undefined) {
    problems.push({
      field: 'platform_options.pinterest.board_id',
      message: 'is required: the id of the board the Pin is saved to',
    });
  }
  problems.push(...oneVideoOrPhotos('pinterest', draft.mediaUrls, PINTEREST_MAX_IMAGES));
  return problems;
}
