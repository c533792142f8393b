import { codePointLength } from '../shared/media.ts';

/** Mastodon counts every link as 23 characters, whatever its length. */
export const MASTODON_URL_LENGTH = 23;

const URL_PATTERN = /https?:\/\/[^\s<>"]+/g;

/**
 * A status's length as Mastodon counts it: code points, each link as 23, and a mention of a
 * remote account by its username only (`@alice@example.social` counts as `@alice`).
 */
export function statusLength(text: string): number {
  const counted = text
    .replace(URL_PATTERN, 'x'.repeat(MASTODON_URL_LENGTH))
    .replace(/(@[A-Za-z0-9_]+)@[A-Za-z0-9.-]+[A-Za-z0-9]/g, '$1');
  return codePointLength(counted);
}
