// Google Business Profile wire calls (docs/platforms.md#google-business-profile;
// developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts create and
// list): JSON with the bearer token on mybusiness.googleapis.com, Google's error object
// `{ error: { code, message, status } }`, and Google's token endpoint (client id and secret in
// the form, as for YouTube).
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { asString, excerpt, type HttpResult, isRecord } from '../shared/http.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { GoogleBusinessSettings } from './settings.ts';

export const LABEL = 'Google Business Profile';
/** Google's quotas are per minute: without a Retry-After, wait one out. */
export const GOOGLE_BUSINESS_THROTTLE_WAIT_MS = 60_000;
/** Local posts a lookup reads (Google's page size is 1 to 100, default 20). */
const LOOKUP_PAGE_SIZE = 20;

/** A local post as Google answers it (create, list). */
export interface LocalPost {
  /** accounts/{a}/locations/{l}/localPosts/{p} */
  name: string;
  summary: string;
  searchUrl: string | null;
  /** LIVE, PROCESSING or REJECTED. */
  state: string;
  /** Epoch ms (0 when Google gave none). */
  createdAt: number;
}

export function createGoogleBusinessApi(
  settings: GoogleBusinessSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const call = bearerClient(runtime, signal, {
    baseUrl: settings.apiBaseUrl,
    label: LABEL,
    failure: googleBusinessFailure,
  });
  return {
    /** POST /v4/{parent}/localPosts -> the created post. */
    async createLocalPost(token: string, parent: string, post: unknown): Promise<LocalPost> {
      const response = await call('POST', `/v4/${parent}/localPosts`, token, 'create local post', {
        json: post,
      });
      const created = localPostOf(response.json);
      // The post exists (2xx) but we cannot name it: not retried (it would post a second one).
      if (!created) throw fail('invalid_response', `${LABEL} create gave no post name`, false);
      return created;
    },

    /** GET /v4/{parent}/localPosts: the location's latest posts, newest first. */
    async localPosts(token: string, parent: string): Promise<LocalPost[]> {
      const path = `/v4/${parent}/localPosts?pageSize=${LOOKUP_PAGE_SIZE}`;
      const response = await call('GET', path, token, 'local posts');
      const items = isRecord(response.json) ? response.json.localPosts : undefined;
      return (Array.isArray(items) ? items : [])
        .map(localPostOf)
        .filter((post) => post !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt);
    },
  };
}

function localPostOf(value: unknown): LocalPost | undefined {
  if (!isRecord(value)) return undefined;
  const name = asString(value.name);
  if (!name) return undefined;
  const created = Date.parse(asString(value.createTime) ?? '');
  return {
    name,
    summary: asString(value.summary) ?? '',
    searchUrl: asString(value.searchUrl) ?? null,
    state: asString(value.state) ?? '',
    createdAt: Number.isFinite(created) ? created : 0,
  };
}

/** Google's error object: `status` (INVALID_ARGUMENT...) and `message`, as far as given. */
export function googleErrorOf(json: unknown): { status?: string; message?: string } {
  const error = isRecord(json) && isRecord(json.error) ? json.error : {};
  const status = asString(error.status);
  const message = asString(error.message);
  return { ...(status ? { status } : {}), ...(message ? { message } : {}) };
}

/**
 * 401 UNAUTHENTICATED is a rejected token (renewed once), 429 RESOURCE_EXHAUSTED a wait, 5xx
 * retryable, any other refusal final. The code kept is Google's `status` (`http_<status>` when
 * the body has none).
 */
export function googleBusinessFailure(response: HttpResult, what: string): Error {
  const error = googleErrorOf(response.json);
  const code = error.status ?? `http_${response.status}`;
  const message = error.message ?? excerpt(response.text);
  const detail = `${what}: HTTP ${response.status}${message ? `: ${message}` : ''}`;
  if (response.status === 401) return new TokenRejected(code, detail);
  if (response.status === 429) {
    return throttled(code, detail, retryAtFrom(response.headers, GOOGLE_BUSINESS_THROTTLE_WAIT_MS));
  }
  if (response.status === 403) {
    return fail(
      code,
      `${detail} (the Business Profile APIs must be enabled and approved for the Google Cloud project, and the user must still manage the location)`,
      false,
    );
  }
  return fail(code, detail, response.status >= 500 || response.status === 408);
}
