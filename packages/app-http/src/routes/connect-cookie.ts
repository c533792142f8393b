/**
 * The cookie that binds a connect flow to the browser that opened its consent. One cookie per
 * flow (its name comes from the state), so several flows in one browser do not overwrite each
 * other; HttpOnly (no script reads it), SameSite=Lax (sent on the platform's top-level redirect
 * back to the callback, not on cross-site subrequests), Secure when PUBLIC_BASE_URL is https,
 * and scoped to the OAuth routes under PUBLIC_BASE_URL's path.
 */
import { hashState } from '@social-publisher/domain';

const PREFIX = 'sp_oauth_';

/**
 * The flow's cookie name. A prefix of the state's hash: the browser holding the cookie already
 * knows the state, so the name reveals nothing to it.
 */
export const flowCookieName = (state: string): string =>
  `${PREFIX}${hashState(state).slice(0, 24)}`;

/** The value of cookie `name` in a Cookie header, if sent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** The flow's cookie as the browser sent it, for the state it came back with. */
export const sentFlowCookie = (
  cookieHeader: string | undefined,
  state: string | undefined,
): string | undefined => (state ? readCookie(cookieHeader, flowCookieName(state)) : undefined);

function attributes(publicBaseUrl: string): string {
  const base = new URL(publicBaseUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/oauth/`;
  const secure = base.protocol === 'https:' ? '; Secure' : '';
  return `Path=${path}; HttpOnly; SameSite=Lax${secure}`;
}

/** Set-Cookie for a flow's nonce, living as long as the flow. */
export function flowCookie(
  publicBaseUrl: string,
  state: string,
  nonce: string,
  expiresAt: Date,
  now: Date,
): string {
  const maxAge = Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000));
  return `${flowCookieName(state)}=${nonce}; Max-Age=${maxAge}; ${attributes(publicBaseUrl)}`;
}

/** Set-Cookie that removes a flow's cookie (its state is used up). */
export const clearedFlowCookie = (publicBaseUrl: string, state: string): string =>
  `${flowCookieName(state)}=; Max-Age=0; ${attributes(publicBaseUrl)}`;
