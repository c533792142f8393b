import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { errorMessage } from '@social-publisher/domain';
import { type Dispatcher, request } from 'undici';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { failedOutcome, PublishFailure, TokenRejected } from './outcome.ts';

export interface HttpCall {
  url: string | URL;
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable | null;
  dispatcher: Dispatcher;
  signal: AbortSignal;
  /** Inactivity bound for the response headers and body (undici headersTimeout/bodyTimeout). */
  timeoutMs: number;
}

/** A refusal kept as the platform answered it (its own error shape), for the caller to read. */
export class AnswerError<Answer> extends Error {
  readonly answer: Answer;
  constructor(message: string, answer: Answer) {
    super(message);
    this.answer = answer;
  }
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** Errors raised before a connection existed: the request cannot have reached the server. */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * Maps an error thrown while talking to a server (connection refused/reset, timeout, TLS...)
 * to a retryable failure, marked `maybeSent` unless no connection was ever made. Aborts and our
 * own failures pass through unchanged.
 */
export function transportFailure(error: unknown, signal: AbortSignal, what: string): unknown {
  if (signal.aborted) return error;
  if (error instanceof PublishFailure || error instanceof TokenRejected) return error;
  const code = errorCode(error);
  const message = errorMessage(error);
  const maybeSent = code === undefined || !NOT_CONNECTED_CODES.has(code);
  const timeout = code !== undefined && TIMEOUT_CODES.has(code);
  const outcome = failedOutcome(
    timeout ? 'network_timeout' : 'network_error',
    `${what}: ${code ? `${code}: ` : ''}${message}`,
    true,
  );
  return new PublishFailure(outcome, { maybeSent });
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined || cause === error ? undefined : errorCode(cause);
}

/** One request whose whole (small) response body is read as text and, if possible, JSON. */
export async function httpCall(call: HttpCall, what: string): Promise<HttpResult> {
  try {
    const response = await request(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body ?? null,
      dispatcher: call.dispatcher,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, json: parseJson(text) };
  } catch (error) {
    throw transportFailure(error, call.signal, what);
  }
}

export function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Inactivity bound of a request carrying media bytes: the transfer keeps undici's timers fresh,
 * but after the last byte the platform may take a while to answer (at least 2 minutes).
 */
export const uploadTimeoutMs = (requestTimeoutMs: number): number =>
  Math.max(requestTimeoutMs, 120_000);

/** What apiCall needs of the runtime: the dispatcher of platform calls and their timeout. */
type ApiRuntime = Pick<PublisherRuntime, 'apiDispatcher' | 'requestTimeoutMs'>;

/** One request to a platform over the API dispatcher, with the request timeout unless it has one. */
export const apiCall = (
  runtime: ApiRuntime,
  signal: AbortSignal,
  call: Pick<HttpCall, 'url' | 'method' | 'headers' | 'body'> & { timeoutMs?: number },
  what: string,
): Promise<HttpResult> =>
  httpCall(
    {
      ...call,
      dispatcher: runtime.apiDispatcher,
      signal,
      timeoutMs: call.timeoutMs ?? runtime.requestTimeoutMs,
    },
    what,
  );

/** One request carrying media bytes (an upload URL's): apiCall with uploadTimeoutMs. */
export const uploadCall = (
  runtime: ApiRuntime,
  signal: AbortSignal,
  call: Pick<HttpCall, 'url' | 'method' | 'headers' | 'body'>,
  what: string,
): Promise<HttpResult> =>
  apiCall(runtime, signal, { ...call, timeoutMs: uploadTimeoutMs(runtime.requestTimeoutMs) }, what);

/** 5xx and 429: the server may answer later (a connect fails, a refresh is tried again). */
export const isTransientStatus = (status: number): boolean => status >= 500 || status === 429;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

export const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** A short, single-line excerpt of a non-JSON error body for messages. */
export const excerpt = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

export const formBody = (fields: Record<string, string>): string =>
  new URLSearchParams(fields).toString();

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** A request's form body with its Content-Type; without a form, no body and no header. */
export const formPayload = (
  form: Record<string, string> | undefined,
): { headers: Record<string, string>; body: string | null } =>
  form
    ? { headers: { 'content-type': FORM_CONTENT_TYPE }, body: formBody(form) }
    : { headers: {}, body: null };
