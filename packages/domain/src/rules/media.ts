import type { Problem } from '../errors.ts';
import type { PlatformRules } from '../ports/platform.ts';
import { typeName } from './shape.ts';

export type MediaKind = 'video' | 'photo' | 'unknown';

export const MAX_MEDIA_URLS = 20;
export const MAX_URL_LENGTH = 2048;

const VIDEO_EXTENSIONS = new Set(['mp4', 'mov', 'm4v', 'webm', 'mkv', 'avi', 'mpeg', 'mpg', '3gp']);
const PHOTO_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'heic', 'bmp']);

/**
 * Guesses the media kind from the URL path's extension. Many media URLs (CDNs, signed links)
 * have none: 'unknown' is allowed here and the publisher decides later from the real bytes.
 */
export function classifyMedia(url: string): MediaKind {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return 'unknown';
  }
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot < 0) return 'unknown';
  const extension = name.slice(dot + 1).toLowerCase();
  if (VIDEO_EXTENSIONS.has(extension)) return 'video';
  if (PHOTO_EXTENSIONS.has(extension)) return 'photo';
  return 'unknown';
}

export function checkMediaUrl(value: unknown, field: string): Problem | null {
  if (typeof value !== 'string')
    return { field, message: `must be a string, got ${typeName(value)}` };
  if (value.length > MAX_URL_LENGTH) {
    return { field, message: `must be at most ${MAX_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { field, message: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { field, message: 'must be an http or https URL' };
  }
  return null;
}

/** `media_urls`: optional array of at most 20 http(s) URLs. */
export function validateMediaUrls(value: unknown): Problem[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    return [{ field: 'media_urls', message: `must be an array of URLs, got ${typeName(value)}` }];
  }
  const problems: Problem[] = [];
  if (value.length > MAX_MEDIA_URLS) {
    problems.push({ field: 'media_urls', message: `must hold at most ${MAX_MEDIA_URLS} URLs` });
  }
  value.forEach((item, index) => {
    const problem = checkMediaUrl(item, `media_urls[${index}]`);
    if (problem) problems.push(problem);
  });
  return problems;
}

/** What each target platform demands of the media, as its descriptor declares it. */
export function validatePlatformMedia(
  platforms: readonly PlatformRules[],
  mediaUrls: readonly string[],
): Problem[] {
  const problems: Problem[] = [];
  for (const { media } of new Set(platforms)) {
    if (media.requiredMessage !== undefined && mediaUrls.length === 0) {
      problems.push({ field: 'media_urls', message: media.requiredMessage });
    }
    const refuses = media.refuses;
    if (!refuses) continue;
    mediaUrls.forEach((url, index) => {
      const kind = classifyMedia(url);
      const message = kind === 'unknown' ? undefined : refuses[kind];
      if (message !== undefined) problems.push({ field: `media_urls[${index}]`, message });
    });
  }
  return problems;
}

/** The valid string entries of a `media_urls` value, for rules that depend on the media. */
export function mediaUrlsOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}
