// AT Protocol XRPC calls (docs/platforms.md#bluesky): JSON procedures and queries under
// /xrpc/<nsid>, errors answered as `{ error, message }`.

import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  AnswerError,
  apiCall,
  asString,
  excerpt,
  type HttpResult,
  header,
  isRecord,
} from '../shared/http.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

/** Bluesky's write limits are hourly: a 429 without `ratelimit-reset` waits this long. */
export const BLUESKY_THROTTLE_WAIT_MS = 15 * 60_000;

/** The XRPC error of an answer: `{ error, message }`, or the status when the body is not that. */
export interface XrpcError {
  status: number;
  error: string;
  message: string;
  headers: IncomingHttpHeaders;
}

export interface XrpcRequest {
  nsid: string;
  method: 'GET' | 'POST';
  /** Bearer token (access or, for refreshSession, refresh JWT); none for createSession. */
  token?: string;
  /** Query parameters; a list is sent as the parameter repeated (getPosts' `uris`). */
  query?: Record<string, string | readonly string[]>;
  /** A JSON input, or raw bytes with their type (uploadBlob). */
  json?: unknown;
  raw?: { body: Readable; contentType: string; length: number | undefined };
  timeoutMs?: number;
}

/** Thrown by `xrpc` for any non-2xx answer; `xrpcFailure` maps it for a publish. */
export class XrpcAnswerError extends AnswerError<XrpcError> {
  override name = 'XrpcAnswerError';
  constructor(answer: XrpcError) {
    super(`${answer.error}: ${answer.message}`, answer);
  }
}

/** One XRPC call; a non-2xx answer throws XrpcAnswerError, a transport error a PublishFailure. */
export async function xrpc(
  serviceUrl: string,
  runtime: PublisherRuntime,
  signal: AbortSignal,
  call: XrpcRequest,
): Promise<HttpResult> {
  const url = new URL(`${serviceUrl}/xrpc/${call.nsid}`);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    for (const one of typeof value === 'string' ? [value] : value)
      url.searchParams.append(name, one);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  let body: string | Readable | null = null;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.raw) {
    headers['content-type'] = call.raw.contentType;
    if (call.raw.length !== undefined) headers['content-length'] = String(call.raw.length);
    body = call.raw.body;
  }
  const response = await apiCall(
    runtime,
    signal,
    { url, method: call.method, headers, body, timeoutMs: call.timeoutMs },
    `Bluesky ${call.nsid}`,
  );
  if (response.status >= 200 && response.status < 300) return response;
  throw new XrpcAnswerError(errorOf(response));
}

function errorOf(response: HttpResult): XrpcError {
  const body = isRecord(response.json) ? response.json : {};
  return {
    status: response.status,
    error: asString(body.error) ?? `http_${response.status}`,
    message: asString(body.message) ?? (excerpt(response.text) || `HTTP ${response.status}`),
    headers: response.headers,
  };
}

/** The access token was refused as expired or invalid: AuthSession refreshes it once. */
export const isTokenError = (answer: XrpcError): boolean =>
  answer.status === 401 || answer.error === 'ExpiredToken' || answer.error === 'InvalidToken';

/**
 * An XRPC answer as a publish sees it. 401 / ExpiredToken / InvalidToken: the token (refreshed
 * once). 429: wait until `ratelimit-reset` (epoch seconds). 400 InvalidRequest and other 4xx:
 * a refusal, not retried. 5xx: retried.
 */
export function xrpcFailure(answer: XrpcError, what: string): Error {
  const message = `Bluesky ${what}: ${answer.error}: ${answer.message}`;
  if (isTokenError(answer)) return new TokenRejected(answer.error, message);
  if (answer.status === 429) {
    return throttled(answer.error, message, retryAtOf(answer.headers));
  }
  if (answer.status >= 500 || answer.status === 408) return fail(answer.error, message, true);
  return fail(answer.error === 'InvalidRequest' ? 'invalid_request' : answer.error, message, false);
}

/** When the account may write again: `ratelimit-reset` (epoch seconds), else Retry-After. */
export function retryAtOf(headers: IncomingHttpHeaders): Date {
  const reset = header(headers, 'ratelimit-reset');
  return retryAtFrom(
    reset === undefined ? headers : { ...headers, 'x-rate-limit-reset': reset },
    BLUESKY_THROTTLE_WAIT_MS,
  );
}

/** Runs `call`, turning an XRPC error answer into what a publish ends with. */
export async function mapped<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof XrpcAnswerError) throw xrpcFailure(error.answer, what);
    throw error;
  }
}
