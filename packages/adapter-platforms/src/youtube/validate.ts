// YouTube's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { mediaKindOf } from '../shared/media.ts';

export const YOUTUBE_TITLE_MAX = 100;
/** YouTube limits descriptions to 5000 bytes (UTF-8). */
export const YOUTUBE_DESCRIPTION_MAX_BYTES = 5000;

/**
 * YouTube checks. Photos are rejected with the same field and message as the shared rule
 * (validatePlatformMedia), so both agree; the rest is beyond the shared rules (which also require
 * a media URL and check privacyStatus): one video per post, description size.
 */
export function validateYoutube(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  const urls = draft.mediaUrls;
  urls.forEach((url, index) => {
    if (mediaKindOf(url) === 'photo') {
      problems.push({
        field: `media_urls[${index}]`,
        message: 'youtube does not accept photos; give a video URL',
      });
    }
  });
  if (urls.length > 1) {
    problems.push({ field: 'media_urls', message: 'youtube takes one video per post' });
  }
  if (Buffer.byteLength(draft.content, 'utf8') > YOUTUBE_DESCRIPTION_MAX_BYTES) {
    problems.push({
      field: 'content',
      message: `youtube descriptions are limited to ${YOUTUBE_DESCRIPTION_MAX_BYTES} bytes`,
    });
  }
  return problems;
}
