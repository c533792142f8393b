// One call to a REST API that takes a bearer token and JSON (LinkedIn, Pinterest, X, Mastodon):
// the Authorization header, a JSON body or a streamed multipart form, the API dispatcher and
// timeouts, the answer read as text and JSON, and a refusal handed to the network's own mapping.
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, type HttpResult, uploadTimeoutMs } from './http.ts';
import { type Multipart, multipartHeaders } from './multipart.ts';

/** DELETE: a remover's call (no body); PUT: X's hide of a reply. */
export type BearerMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface BearerCall {
  method: BearerMethod;
  url: string;
  token: string;
  /** Names the call in messages ("LinkedIn post"). */
  what: string;
  /** Sent as JSON (application/json). */
  json?: unknown;
  /** Or a form streamed with the media bytes (multipart.ts). */
  form?: Multipart;
  /** The network's own headers (API version, Accept, Idempotency-Key...). */
  headers?: Record<string, string>;
  /** Default: a form gets the upload timeout (uploadTimeoutMs), any other call the request one. */
  timeoutMs?: number;
}

/** A refused call (not 2xx) as the network reads it: TokenRejected, a PublishFailure... */
export type BearerFailure = (response: HttpResult, what: string) => Error;

/** The 2xx answer of the call; anything else is thrown as `failure` says. */
export async function bearerCall(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  call: BearerCall,
  failure: BearerFailure,
): Promise<HttpResult> {
  const { json, form, what } = call;
  const contentType: Record<string, string> =
    json !== undefined
      ? { 'content-type': 'application/json' }
      : form
        ? multipartHeaders(form)
        : {};
  const response = await apiCall(
    runtime,
    signal,
    {
      url: call.url,
      method: call.method,
      headers: { authorization: `Bearer ${call.token}`, ...call.headers, ...contentType },
      body: json !== undefined ? JSON.stringify(json) : (form?.body ?? null),
      timeoutMs: call.timeoutMs ?? (form ? uploadTimeoutMs(runtime.requestTimeoutMs) : undefined),
    },
    what,
  );
  if (response.status >= 200 && response.status < 300) return response;
  throw failure(response, what);
}

/** What one call of a client adds: its body, its own headers, another reading of refusals. */
export interface BearerSend {
  json?: unknown;
  form?: Multipart;
  headers?: Record<string, string>;
  /** This call's refusals read otherwise than the client's (LinkedIn names the author). */
  failure?: BearerFailure;
}

/**
 * The calls of one API: paths on `baseUrl`, `label` naming the network in messages, `headers`
 * on every call, `failure` reading the refusals.
 */
export function bearerClient(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  client: {
    baseUrl: string;
    label: string;
    headers?: Record<string, string>;
    failure: BearerFailure;
  },
) {
  return (
    method: BearerMethod,
    path: string,
    token: string,
    what: string,
    send: BearerSend = {},
  ): Promise<HttpResult> =>
    bearerCall(
      runtime,
      signal,
      {
        method,
        url: `${client.baseUrl}${path}`,
        token,
        what: `${client.label} ${what}`,
        json: send.json,
        ...(send.form ? { form: send.form } : {}),
        headers: { ...client.headers, ...send.headers },
      },
      send.failure ?? client.failure,
    );
}
