// Meta's Graph API, as Facebook, Instagram and Threads speak it: a versioned base URL,
// parameters and the token in the query or a form, and one error object whatever the edge
// (read in failure.ts; developers.facebook.com "Graph API: Using the API", "Handling Errors").
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, asString, formPayload, type HttpResult, isRecord } from '../shared/http.ts';
import { type OAuthStepError, oauthGet } from '../shared/oauth.ts';
import { identityError } from '../shared/oauth-identity.ts';
import { type GraphFailure, graphErrorOf } from './failure.ts';

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

/** DELETE: a remover's call (the token in the query, Graph answers `{ success: true }`). */
export type GraphMethod = 'GET' | 'POST' | 'DELETE';

/**
 * One publishing call: `form` makes it a form POST. A 2xx answer whose body is a JSON object
 * without `error` is returned; anything else is thrown as `failure` says.
 */
export async function graphCall(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  call: { method: GraphMethod; url: URL; form?: Record<string, string>; what: string },
  failure: GraphFailure,
): Promise<Record<string, unknown>> {
  const { method, url, form, what } = call;
  const { headers, body: payload } = formPayload(form);
  const response = await apiCall(runtime, signal, { url, method, headers, body: payload }, what);
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
  return (method: GraphMethod, path: string, params: GraphParams = {}) =>
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

/** A network's Graph calls, as graphClient makes them. */
export type GraphCalls = ReturnType<typeof graphClient>;

/** DELETE /{id}, the token in the query: a post, a comment or a reply alike. */
export const deleteGraphObject = (graph: GraphCalls, id: string, token: string) =>
  graph('DELETE', `/${encodeURIComponent(id)}`, { query: { access_token: token } });

/**
 * The calls of Meta's container APIs (Instagram, Threads): the token always in the query,
 * parameters in the query, or in `form` for a POST; and the two calls they share.
 */
export function containerClient(graph: GraphCalls) {
  const call = (
    method: 'GET' | 'POST',
    path: string,
    token: string,
    query: Record<string, string>,
    form?: Record<string, string>,
  ) => graph(method, path, { query: { ...query, access_token: token }, ...(form ? { form } : {}) });
  return {
    call,
    /** POST /{user-id}/{edge}?creation_id=: publishes a finished container -> the answer. */
    publishContainer: (token: string, userId: string, edge: string, containerId: string) =>
      call('POST', `/${userId}/${edge}`, token, { creation_id: containerId }),
    /** GET /{media-id}?fields=permalink */
    async permalink(token: string, mediaId: string): Promise<string | null> {
      const body = await call('GET', `/${mediaId}`, token, { fields: 'permalink' });
      return asString(body.permalink) ?? null;
    },
  };
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
