// What a connector asks the platform with the tokens it was just given (who consented, which
// pages or channels), and how a refusal of those calls ends the connect or refresh. Token
// endpoints have their own reading (standardTokenRequest in oauth.ts).
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { isRecord, isTransientStatus } from './http.ts';
import { OAuthStepError, oauthGet } from './oauth.ts';

/** An identity answer: its status and its body as a JSON object (empty when it is none). */
export interface IdentityAnswer {
  ok: boolean;
  status: number;
  body: Record<string, unknown>;
  /** The answer was a JSON object (not an empty, HTML or array body). */
  isObject: boolean;
}

/** GET with the user's access token as Bearer (and the platform's `headers`), read as JSON. */
export async function identityGet(
  runtime: PublisherRuntime,
  url: string | URL,
  accessToken: string,
  signal: AbortSignal,
  what: string,
  headers: Record<string, string> = {},
): Promise<IdentityAnswer> {
  const response = await oauthGet(runtime, url, signal, what, {
    authorization: `Bearer ${accessToken}`,
    ...headers,
  });
  return {
    ok: response.status >= 200 && response.status < 300,
    status: response.status,
    body: isRecord(response.json) ? response.json : {},
    isObject: isRecord(response.json),
  };
}

/** What the platform said of a refused call, as far as it said anything. */
export interface PlatformRefusal {
  /** Its own error code (default `http_<status>`). */
  code?: string | undefined;
  /** Its own message (default: the code, else "unexpected answer"). */
  message?: string | undefined;
  /** The token was refused for good (e.g. 401, Graph 190): the user must reconnect. */
  refused?: boolean;
  /** The platform says to try again (besides 5xx and 429). */
  transient?: boolean;
}

/**
 * A refused identity call as the step error ending the connect or refresh: `refused` when the
 * platform rejected the token, `failed` (tried again) when transient, else `error`.
 */
export function identityError(
  what: string,
  status: number,
  refusal: PlatformRefusal,
): OAuthStepError {
  const code = refusal.code || `http_${status}`;
  const message = refusal.message || refusal.code || `unexpected answer (HTTP ${status})`;
  const kind = refusal.refused
    ? 'refused'
    : isTransientStatus(status) || refusal.transient
      ? 'failed'
      : 'error';
  return new OAuthStepError(code, `${what}: ${message}`, kind);
}
