// Meta's Graph API, as Facebook and Instagram (and any other Meta network) speak it: a versioned
// base URL, parameters and the token in the query or a form, and one error object
// `{ error: { message, type, code, error_subcode, is_transient, fbtrace_id } }` whatever the
// edge (developers.facebook.com "Graph API: Using the API", "Handling Errors").
import type { IncomingHttpHeaders } from 'node:http';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  asString,
  excerpt,
  FORM_CONTENT_TYPE,
  formBody,
  type HttpResult,
  httpCall,
  isRecord,
} from './http.ts';
import { type OAuthStepError, oauthGet } from './oauth.ts';
import { identityError } from './oauth-identity.ts';
import { fail, type PublishFailure, TokenRejected } from './outcome.ts';
import { retryAtFrom, throttled } from './rate-limit.ts';

/** `${baseUrl}/v21.0`: the version as Graph's paths want it (a bare `21.0` gets its `v`). */
export function versionedGraphBase(baseUrl: string, version: string): string {
  return `${baseUrl}/${version.startsWith('v') ? version : `v${version}`}`;
}

/** A Graph URL with these query parameters (the token among them where the call wants it). */
export function graphUrl(base: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(`${base}${path}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url;
}

/** Graph's error object, read; NaN where a code is absent. */
export interface GraphError {
  code: number;
  subcode: number;
  message: string | undefined;
  transient: boolean;
}

/** The error object of a Graph answer, or undefined when the answer holds none. */
export function graphErrorOf(body: Record<string, unknown> | undefined): GraphError | undefined {
  const error = body && isRecord(body.error) ? body.error : undefined;
  if (!error) return undefined;
  return {
    code: Number(error.code),
    subcode: Number(error.error_subcode),
    message: asString(error.message),
    transient: error.is_transient === true,
  };
}

/**
 * A refusal without Graph's error object (a proxy's page, a bare 429 or 5xx): a 429 waits until
 * `retryAt()`, a 5xx is retried, anything else fails for good.
 */
export function bareGraphFailure(
  label: string,
  status: number,
  text: string,
  retryAt: () => Date,
): PublishFailure {
  const message = `${label} HTTP ${status}: ${excerpt(text)}`;
  if (status === 429) return throttled('http_429', message, retryAt());
  return fail(`http_${status}`, message, status >= 500);
}

/** How a platform turns a refused Graph call into its publish failure (codes differ by network). */
export type GraphFailure = (
  status: number,
  body: Record<string, unknown> | undefined,
  text: string,
  headers?: IncomingHttpHeaders,
) => Error;

/** What sets one Meta publishing API's reading of Graph errors apart (Instagram, Threads). */
export interface MetaErrorTable {
  label: string;
  /** Generic codes worth another try; read only when no subcode says more. */
  retryableCodes: ReadonlySet<number>;
  /** Subcodes worth another try (media not fetched in time, a server error...). */
  retryableSubcodes: ReadonlySet<number>;
  /** Throttling codes: the target waits `throttleWaitMs`; read only without a subcode. */
  throttleCodes: ReadonlySet<number>;
  throttleWaitMs: number;
  /** The subcode of a spent publishing quota, the note added to its message, the wait. */
  quota: { subcode: number; note: string; waitMs: number };
}

/**
 * `{ error: { message, type, code, error_subcode, fbtrace_id } }` -> failure, as Meta's
 * publishing APIs answer. The outcome code is the error_subcode when present (the precise one:
 * 2207052...), else the code; the message is Meta's own. 190 is an invalid or expired token:
 * these tokens are renewed ahead by the worker (or not at all), so it ends connection_expired.
 */
export function metaGraphFailure(table: MetaErrorTable): GraphFailure {
  const { label, quota } = table;
  return (status, body, text, headers = {}) => {
    const error = graphErrorOf(body);
    if (!error) {
      return bareGraphFailure(label, status, text, () =>
        retryAtFrom(headers, table.throttleWaitMs),
      );
    }
    const { code, subcode } = error;
    const message = error.message ?? `${label} error ${code}`;
    if (code === 190) return new TokenRejected('190', message);
    const hasSubcode = Number.isFinite(subcode);
    if (subcode === quota.subcode) {
      return throttled(
        String(subcode),
        `${message} (${quota.note})`,
        retryAtFrom(headers, quota.waitMs),
      );
    }
    if (!hasSubcode && table.throttleCodes.has(code)) {
      return throttled(String(code), message, retryAtFrom(headers, table.throttleWaitMs));
    }
    const retryable =
      (hasSubcode ? table.retryableSubcodes.has(subcode) : table.retryableCodes.has(code)) ||
      error.transient ||
      status >= 500;
    const outcomeCode = hasSubcode
      ? String(subcode)
      : Number.isFinite(code)
        ? String(code)
        : `http_${status}`;
    return fail(outcomeCode, message, retryable);
  };
}

/**
 * One publishing call: `form` makes it a form POST. A 2xx answer whose body is a JSON object
 * without `error` is returned; anything else is thrown as `failure` says.
 */
export async function graphCall(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  call: { method: 'GET' | 'POST'; url: URL; form?: Record<string, string>; what: string },
  failure: GraphFailure,
): Promise<Record<string, unknown>> {
  const { method, url, form, what } = call;
  const response = await httpCall(
    {
      url,
      method,
      headers: form ? { 'content-type': FORM_CONTENT_TYPE } : {},
      body: form ? formBody(form) : null,
      dispatcher: runtime.apiDispatcher,
      signal,
      timeoutMs: runtime.requestTimeoutMs,
    },
    what,
  );
  const body = successOf(response);
  if (body) return body;
  throw failure(response.status, jsonObject(response), response.text, response.headers);
}

/** Where a Graph call's parameters go: the query, and for a POST a form. */
export interface GraphParams {
  query?: Record<string, string>;
  form?: Record<string, string>;
}

/**
 * A publisher's Graph calls on `baseUrl` under `version`; `label` names the network in
 * messages and `failure` reads its refusals.
 */
export function graphClient(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  options: { baseUrl: string; version: string; label: string; failure: GraphFailure },
) {
  const base = versionedGraphBase(options.baseUrl, options.version);
  return (method: 'GET' | 'POST', path: string, params: GraphParams = {}) =>
    graphCall(
      runtime,
      signal,
      {
        method,
        url: graphUrl(base, path, params.query),
        ...(params.form ? { form: params.form } : {}),
        what: `${options.label} ${method} ${path}`,
      },
      options.failure,
    );
}

/** A GET during a connect or refresh (token exchanges, identity); Graph errors as OAuthStepError. */
export async function graphOAuthGet(
  runtime: PublisherRuntime,
  url: URL,
  signal: AbortSignal,
  what: string,
): Promise<Record<string, unknown>> {
  const response = await oauthGet(runtime, url, signal, what);
  const body = successOf(response);
  if (body) return body;
  throw graphStepError(response.status, jsonObject(response), what);
}

/**
 * A Graph refusal during a connect or refresh: its code and message (with the subcode), 190 (a
 * token invalid, expired or revoked) a refusal, 5xx/429/`is_transient` transient.
 */
export function graphStepError(
  status: number,
  body: Record<string, unknown> | undefined,
  what: string,
): OAuthStepError {
  const error = graphErrorOf(body);
  if (!error) return identityError(what, status, {});
  const code = Number.isFinite(error.code) ? String(error.code) : `http_${status}`;
  const subcode = Number.isFinite(error.subcode) ? ` (subcode ${error.subcode})` : '';
  return identityError(what, status, {
    code,
    message: `${error.message ?? `error ${code}`}${subcode}`,
    refused: code === '190',
    transient: error.transient,
  });
}

const jsonObject = (response: HttpResult) => (isRecord(response.json) ? response.json : undefined);

function successOf(response: HttpResult): Record<string, unknown> | undefined {
  const body = jsonObject(response);
  const ok = response.status >= 200 && response.status < 300;
  return ok && body && !isRecord(body.error) ? body : undefined;
}
