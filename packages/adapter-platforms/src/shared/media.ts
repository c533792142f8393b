import { classifyMedia } from '@social-publisher/domain';

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
