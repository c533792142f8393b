/**
 * What every platform's OAuth client shares: token-endpoint calls, the consent URL, expiry and
 * scope parsing, and the two runners that turn a connect or a refresh into the domain's
 * outcome without ever throwing and without a token in any message.
 *
 * A platform with a standard token endpoint (RFC 6749) writes one
 * `TokenRenewal` on `standardTokenRequest`; `oauthRefresh` makes it the connector's `refresh`
 * and `publisherRefresher` the publisher's renewal on a rejected token: one request for both.
 */
import {
  type ConnectedIdentity,
  type ConnectOutcome,
  errorMessage,
  type GrantedTokens,
  type RefreshInput,
  type RefreshOutcome,
} from '@social-publisher/domain';
import type { PlatformSettingsSpec } from '../descriptor.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { TokenRefresher } from './auth.ts';
import {
  apiCall,
  asString,
  excerpt,
  formPayload,
  type HttpResult,
  isRecord,
  isTransientStatus,
} from './http.ts';
import { connectionExpired, fail, PublishFailure } from './outcome.ts';

/** How a failed step ends: `refused` = re-authorise (invalid_grant, revoked, code 190). */
export type OAuthFailureKind = 'refused' | 'failed' | 'error';

/**
 * Thrown inside a connect or refresh step; `code` is the platform's own code where it gave
 * one. `failed` is transient (5xx, 429, network): a refresh is tried again later.
 */
export class OAuthStepError extends Error {
  readonly code: string;
  readonly kind: OAuthFailureKind;
  constructor(code: string, message: string, kind: OAuthFailureKind) {
    super(message);
    this.name = 'OAuthStepError';
    this.code = code;
    this.kind = kind;
  }
}

/** A whole connect or refresh gives up past this, whatever the per-request timeouts. */
const STEP_DEADLINE_MS = 60_000;

/** One request of a connect or refresh, its JSON answer read. */
function oauthCall(
  runtime: PublisherRuntime,
  url: string | URL,
  signal: AbortSignal,
  what: string,
  headers: Record<string, string>,
  form?: Record<string, string>,
): Promise<HttpResult> {
  const payload = formPayload(form);
  return apiCall(
    runtime,
    signal,
    {
      url,
      method: form ? 'POST' : 'GET',
      headers: { ...payload.headers, accept: 'application/json', ...headers },
      body: payload.body,
    },
    what,
  );
}

/** POST a form to a token endpoint (code exchange, refresh). */
export function oauthPostForm(
  runtime: PublisherRuntime,
  url: string | URL,
  fields: Record<string, string>,
  signal: AbortSignal,
  what: string,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return oauthCall(runtime, url, signal, what, headers, fields);
}

/** GET with the JSON answer read (identity, long-lived exchange, Graph token endpoints). */
export function oauthGet(
  runtime: PublisherRuntime,
  url: string | URL,
  signal: AbortSignal,
  what: string,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return oauthCall(runtime, url, signal, what, headers);
}

/** The consent page URL: `base` (host + the platform's path) with these query parameters. */
export function authorizationUrl(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/** `expires_in` seconds from now; null when absent or not a positive number. */
export function expiresAt(expiresIn: unknown, now = Date.now()): Date | null {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return null;
  return new Date(now + seconds * 1_000);
}

/** Scopes as platforms send them: a space- or comma-separated string, or an array. */
export function parseScopes(value: unknown): string[] {
  const items = Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? value.split(/[\s,]+/)
      : [];
  return [...new Set(items.map((item) => item.trim()).filter((item) => item !== ''))];
}

/** The variables of an app's client id and secret that are not set (empty: connectable). */
export function missingClientSettings(
  spec: PlatformSettingsSpec,
  settings: Readonly<Record<string, string | undefined>>,
): string[] {
  return ['clientId', 'clientSecret']
    .filter((key) => spec[key] !== undefined && !settings[key])
    .map((key) => spec[key]?.env ?? key);
}

/** `text` with every secret (token, code) replaced: messages reach users and logs. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

type StepFailure = { code: string; message: string; kind: OAuthFailureKind };

function failureOf(error: unknown, label: string, signal: AbortSignal): StepFailure {
  if (error instanceof OAuthStepError) {
    return { code: error.code, message: error.message, kind: error.kind };
  }
  if (error instanceof PublishFailure && error.outcome.kind === 'failed') {
    // Transport failures of apiCall (connection refused, timeout): transient.
    return { code: error.outcome.code, message: error.outcome.message, kind: 'failed' };
  }
  if (signal.aborted) {
    return {
      code: 'timeout',
      message: `${label}: the platform did not answer in time`,
      kind: 'failed',
    };
  }
  const message = errorMessage(error);
  return { code: 'adapter_error', message: `${label}: ${message}`, kind: 'failed' };
}

function activeSignal(signal: AbortSignal | undefined): AbortSignal {
  const deadline = AbortSignal.timeout(STEP_DEADLINE_MS);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}

/**
 * Runs a connect (code exchange, long-lived exchange, identity). `secrets` starts with the
 * code; steps push the tokens they obtain, so none appears in a failure message.
 */
export async function runConnect(
  label: string,
  secrets: string[],
  signal: AbortSignal | undefined,
  work: (active: AbortSignal, secrets: string[]) => Promise<ConnectedIdentity[]>,
): Promise<ConnectOutcome> {
  const active = activeSignal(signal);
  const known = [...secrets];
  try {
    return { ok: true, identities: await work(active, known) };
  } catch (error) {
    const failure = failureOf(error, label, active);
    return {
      ok: false,
      error: { code: failure.code, message: redact(failure.message, known) },
    };
  }
}

/** Runs a token renewal; `refused` only when the platform refused the grant for good. */
export async function runRefresh(
  label: string,
  secrets: string[],
  signal: AbortSignal | undefined,
  work: (active: AbortSignal, secrets: string[]) => Promise<GrantedTokens>,
): Promise<RefreshOutcome> {
  const active = activeSignal(signal);
  const known = [...secrets];
  try {
    return { kind: 'refreshed', tokens: await work(active, known) };
  } catch (error) {
    const failure = failureOf(error, label, active);
    const reason = redact(`${failure.code}: ${failure.message}`, known);
    // An error that is neither a refusal nor transient (a misconfigured client, a malformed
    // answer) must not expire users' connections: it is retried and logged.
    return failure.kind === 'refused' ? { kind: 'refused', reason } : { kind: 'failed', reason };
  }
}

/** A standard OAuth 2.0 token answer (RFC 6749 5.1). */
export interface StandardTokenAnswer {
  tokens: GrantedTokens;
  /** The whole answer, for platform extras (e.g. an open id beside the tokens). */
  body: Record<string, unknown>;
}

/**
 * Which token-endpoint refusals mean "the grant is gone, re-authorise" (`refused`) rather than
 * a misconfigured app or a malformed request (`error`). Default: RFC 6749's `invalid_grant`.
 */
export type RefusalRule = (
  error: string,
  description: string | undefined,
  status: number,
) => boolean;

export const invalidGrant: RefusalRule = (error) => error === 'invalid_grant';

/**
 * POSTs a token request (`grant_type` in `fields`) and reads a standard answer; a refusal
 * `{ error, error_description }` (RFC 6749 5.2) becomes an OAuthStepError: `refused` when
 * `refused` says so (default `invalid_grant`), else 5xx/429 `failed`, anything else `error`.
 * An answer with an `error` field is a refusal whatever its status.
 */
export async function standardTokenRequest(
  runtime: PublisherRuntime,
  url: string,
  fields: Record<string, string>,
  signal: AbortSignal,
  what: string,
  headers: Record<string, string> = {},
  refused: RefusalRule = invalidGrant,
): Promise<StandardTokenAnswer> {
  const response = await oauthPostForm(runtime, url, fields, signal, what, headers);
  const body = isRecord(response.json) ? response.json : {};
  const accessToken = asString(body.access_token);
  const error = asString(body.error);
  if (response.status >= 200 && response.status < 300 && accessToken && !error) {
    return {
      tokens: {
        accessToken,
        refreshToken: asString(body.refresh_token) ?? null,
        expiresAt: expiresAt(body.expires_in),
        scopes: parseScopes(body.scope),
      },
      body,
    };
  }
  const code = error ?? `http_${response.status}`;
  const description = asString(body.error_description) ?? excerpt(response.text);
  const transient = isTransientStatus(response.status);
  throw new OAuthStepError(
    code,
    `${what}: ${code}${description ? `: ${description}` : ''}`,
    refused(code, description, response.status) ? 'refused' : transient ? 'failed' : 'error',
  );
}

/**
 * A platform's token endpoint with its client credentials applied: the code exchange and the
 * refresh are the same request with other `fields` (`grant_type` among them).
 */
export type TokenEndpoint = (
  fields: Record<string, string>,
  signal: AbortSignal,
  what: string,
) => Promise<StandardTokenAnswer>;

/**
 * The token endpoint at `url`: `credentials` (client_id, client_secret... as the platform names
 * them) join every request's fields; `headers` (e.g. HTTP Basic) and `refused` as the platform
 * needs. Null when the app's client id or secret is not set (`configured` false).
 */
export function clientTokenEndpoint(
  runtime: PublisherRuntime,
  url: string,
  credentials: Record<string, string>,
  options: { configured: boolean; headers?: Record<string, string>; refused?: RefusalRule },
): TokenEndpoint | null {
  if (!options.configured) return null;
  return (fields, signal, what) =>
    standardTokenRequest(
      runtime,
      url,
      { ...fields, ...credentials },
      signal,
      what,
      options.headers,
      options.refused,
    );
}

/** HTTP Basic credentials of a confidential client (X's token endpoint). */
export const basicAuth = (clientId: string, clientSecret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

/**
 * Renews an access token with a refresh token (`grant_type=refresh_token`). Throws an
 * OAuthStepError (refused / failed / error) or a transport failure of apiCall. `refreshToken`
 * is null in the answer when the platform sent none (Google): the old one stays valid.
 */
export type TokenRenewal = (refreshToken: string, signal: AbortSignal) => Promise<GrantedTokens>;

/** `grant_type=refresh_token` on the platform's token endpoint; null when it is (unconfigured). */
export function refreshGrant(endpoint: TokenEndpoint | null, label: string): TokenRenewal | null {
  if (!endpoint) return null;
  return async (refreshToken, signal) => {
    const { tokens } = await endpoint(
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      signal,
      `${label} token refresh`,
    );
    return tokens;
  };
}

/**
 * A connector's `refresh` on a renewal (null: the client id/secret are not configured). A
 * connection without a refresh token is `refused` (reconnect); the outcome never holds a token.
 */
export function oauthRefresh(
  label: string,
  renew: TokenRenewal | null,
): (input: RefreshInput, signal?: AbortSignal) => Promise<RefreshOutcome> {
  return async (input, signal) => {
    if (!renew) return { kind: 'failed', reason: `${label}: client id/secret not configured` };
    const refreshToken = input.refreshToken;
    if (!refreshToken) {
      return { kind: 'refused', reason: `${label} gave no refresh token: reconnect the account` };
    }
    return runRefresh(label, [input.accessToken, refreshToken], signal, async (active, secrets) => {
      const tokens = await renew(refreshToken, active);
      secrets.push(tokens.accessToken, tokens.refreshToken ?? '');
      return tokens;
    });
  };
}

/**
 * The publisher's renewal on a rejected token (AuthSession) on the same renewal: `refused` ->
 * connection_expired, `failed` -> a retryable failure, `error` (e.g. invalid_client: our app's
 * credentials, not the user's grant) -> a failure that is not retried. Null when `renew` is.
 */
export function publisherRefresher(renew: TokenRenewal | null): TokenRefresher | null {
  if (!renew) return null;
  return async (refreshToken, signal) => {
    try {
      return await renew(refreshToken, signal);
    } catch (error) {
      if (!(error instanceof OAuthStepError)) throw error; // transport: already retryable
      const message = redact(error.message, [refreshToken]);
      if (error.kind === 'refused') throw connectionExpired(`${message} (refused)`);
      throw fail(error.code, message, error.kind === 'failed');
    }
  };
}

/** A connect that cannot start: the app's client id/secret are not set. */
export function notConfigured(label: string, missing: readonly string[]): ConnectOutcome {
  return {
    ok: false,
    error: {
      code: 'platform_not_configured',
      message: `${label} is not configured: set ${missing.join(', ')}`,
    },
  };
}
