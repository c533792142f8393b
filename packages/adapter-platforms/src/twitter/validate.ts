import type { PostDraft, Problem } from '@social-publisher/domain';
import { mediaKindOf } from '../shared/media.ts';

export const X_MAX_IMAGES = 4;

/**
 * X checks beyond the shared rules (which count the content as X does, see text.ts): one
 * video, or up to 4 photos, not both.
 */
export function validateTwitter(draft: PostDraft): Problem[] {
  const kinds = draft.mediaUrls.map(mediaKindOf);
  const photos = kinds.filter((kind) => kind === 'photo').length;
  const videos = kinds.length - photos;
  if (photos > 0 && videos > 0) {
    return [{ field: 'media_urls', message: 'twitter cannot mix photos and videos in one post' }];
  }
  if (videos > 1) return [{ field: 'media_urls', message: 'twitter takes one video per post' }];
  if (photos > X_MAX_IMAGES) {
    return [
      { field: 'media_urls', message: `twitter takes at most ${X_MAX_IMAGES} photos per post` },
    ];
  }
  return [];
}
