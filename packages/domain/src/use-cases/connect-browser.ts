/**
 * Binding a connect flow to one browser. The state alone proves nothing about who brings a
 * code back: a code from one person's consent, sent with another flow's state, would connect
 * that person's account to the other flow's account (on platforms without PKCE nothing else
 * ties the code to the flow). So the browser that opens the consent receives a random nonce in
 * a cookie, the flow stores its SHA-256, and the callback accepts the state only with it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthState } from '../model.ts';

/** A fresh nonce for a browser's cookie: 32 random bytes, base64url. */
export const newBrowserNonce = (): string => randomBytes(32).toString('base64url');

/** What the flow stores instead of the nonce. */
export const browserHashOf = (nonce: string): string =>
  createHash('sha256').update(nonce, 'utf8').digest('hex');

/** Whether `nonce` is the one bound to the flow; constant time whatever it holds. */
export function browserMatches(state: OAuthState, nonce: string | undefined): boolean {
  if (state.browserHash === null || nonce === undefined || nonce === '') return false;
  // Both are hex SHA-256 digests, so their lengths are always equal.
  return timingSafeEqual(
    Buffer.from(browserHashOf(nonce), 'utf8'),
    Buffer.from(state.browserHash, 'utf8'),
  );
}
