/**
 * The rules of hosted media that need no storage: which types may be uploaded, how a public
 * name looks, and how our own URLs are recognised among a post's `media_urls`.
 */

/** The types POST /media takes, and the extension each public name gets. */
export const MEDIA_CONTENT_TYPES = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
} as const;

export type MediaContentType = keyof typeof MEDIA_CONTENT_TYPES;

/** The path hosted media are served under, below PUBLIC_BASE_URL. */
export const MEDIA_PATH = '/m/';

/** 32 hex digits (128 random bits) and one of the extensions above. */
const NAME_PATTERN = /^[0-9a-f]{32}\.(jpg|png|webp|mp4|mov)$/;

export function isMediaContentType(value: string): value is MediaContentType {
  return Object.hasOwn(MEDIA_CONTENT_TYPES, value);
}

/** The bare type of a Content-Type header (no parameters, lower case). */
export function bareContentType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function isMediaName(value: string): boolean {
  return NAME_PATTERN.test(value);
}

/** A public name from 16 random bytes and the type. */
export function mediaNameOf(random: Uint8Array, contentType: MediaContentType): string {
  return `${Buffer.from(random).toString('hex')}.${MEDIA_CONTENT_TYPES[contentType]}`;
}

export function mediaUrlOf(publicBaseUrl: string, name: string): string {
  return `${publicBaseUrl}${MEDIA_PATH}${name}`;
}

/**
 * The media name when `url` is one of ours (under PUBLIC_BASE_URL's /m/), else null. A URL
 * under our prefix with a name we never hand out counts as ours too (the name is checked
 * against storage, and fails there), so that it is not fetched as a stranger's URL.
 */
export function hostedMediaName(publicBaseUrl: string, url: string): string | null {
  const prefix = `${publicBaseUrl}${MEDIA_PATH}`;
  if (!url.startsWith(prefix)) return null;
  return url.slice(prefix.length);
}

/** Our own media names among URLs, in order, without repeats. */
export function hostedMediaNames(publicBaseUrl: string, urls: readonly string[]): string[] {
  const names = urls
    .map((url) => hostedMediaName(publicBaseUrl, url))
    .filter((name): name is string => name !== null);
  return [...new Set(names)];
}
