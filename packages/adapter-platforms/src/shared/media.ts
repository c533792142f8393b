import { classifyMedia, type Problem } from '@social-publisher/domain';

export type MediaKind = 'video' | 'photo';

/**
 * Photo or video, by the domain's own classification (extension of the URL path) so the
 * publishers and the shared rules agree. 'unknown' (no or unusual extension: CDNs, signed links)
 * counts as a video: the platform then answers with its own verbatim error if it is not one.
 */
export const mediaKindOf = (url: string): MediaKind =>
  classifyMedia(url) === 'photo' ? 'photo' : 'video';

/** Length in Unicode code points (what most platforms count as characters). */
export const codePointLength = (text: string): number => Array.from(text).length;

export const truncateCodePoints = (text: string, max: number): string => {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join('');
};

/** The first line of the content, trimmed. */
export const firstLine = (content: string): string => (content.split(/\r?\n/)[0] ?? '').trim();

/**
 * The media rule most platforms share beyond the common ones: one video, or up to `maxPhotos`
 * photos, never both in one post.
 */
export function oneVideoOrPhotos(
  platform: string,
  mediaUrls: readonly string[],
  maxPhotos: number,
): Problem[] {
  const kinds = mediaUrls.map(mediaKindOf);
  const photos = kinds.filter((kind) => kind === 'photo').length;
  const videos = kinds.length - photos;
  const problem = (message: string) => [{ field: 'media_urls', message: `${platform} ${message}` }];
  if (photos > 0 && videos > 0) return problem('cannot mix photos and videos in one post');
  if (videos > 1) return problem('takes one video per post');
  if (photos > maxPhotos) return problem(`takes at most ${maxPhotos} photos per post`);
  return [];
}
