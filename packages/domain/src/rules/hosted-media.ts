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

/** How many first bytes `startsAsMediaType` needs to decide (fewer: the whole file). */
export const MEDIA_SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, at: number, text: string): boolean =>
  head.length >= at + text.length &&
  [...text].every((char, i) => head[at + i] === char.charCodeAt(0));

/**
 * The box a QuickTime or MP4 file starts with, at byte 4 after its size: ISO BMFF files start
 * with `ftyp`; older QuickTime files may start with their movie, data or padding atom.
 */
const MOVIE_FIRST_BOXES = ['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot'];

/**
 * Whether a file's first bytes (at least MEDIA_SNIFF_BYTES of them, or the whole file) are
 * those of `contentType`: their magic numbers, so that an HTML page (or anything else a
 * browser might run) is never hosted under an image or video type.
 */
export function startsAsMediaType(contentType: MediaContentType, head: Uint8Array): boolean {
  switch (contentType) {
    case 'image/png':
      return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((byte, i) => head[i] === byte);
    case 'image/jpeg':
      return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case 'image/webp':
      return ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP');
    case 'video/mp4':
    case 'video/quicktime':
      return MOVIE_FIRST_BOXES.some((box) => ascii(head, 4, box));
  }
}

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
