import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether a presented secret is the expected one, in a time that says nothing about either:
 * their SHA-256 digests are compared (always 32 bytes, in constant time), so neither the length
 * of the secret nor how much of it a guess got right shows in the answer's timing.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
