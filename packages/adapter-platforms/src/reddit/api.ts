// Reddit's wire calls (docs/platforms.md#reddit; reddit.com/dev/api "POST /api/submit",
// "GET /user/{username}/submitted", "GET /api/v1/me"; github.com/reddit-archive/reddit/wiki/OAuth2):
// every call carries the configured User-Agent (Reddit refuses generic ones), API calls go to
// oauth.reddit.com with the bearer token, the token endpoint is on www.reddit.com with HTTP Basic
// client authentication.
import type { IncomingHttpHeaders } from 'node:http';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  apiCall,
  asString,
  excerpt,
  formPayload,
  type HttpResult,
  header,
  isRecord,
} from '../shared/http.ts';
import {
  basicAuth,
  clientTokenEndpoint,
  OAuthStepError,
  publisherRefresher,
  refreshGrant,
  type TokenEndpoint,
  type TokenRenewal,
} from '../shared/oauth.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { RedditSettings } from './settings.ts';

export const LABEL = 'Reddit';
/** Reddit's window is ten minutes long, its budget per minute: without a reset, wait a minute. */
export const REDDIT_THROTTLE_WAIT_MS = 60_000;
/** A RATELIMIT refusal whose message names no wait: Reddit's usual posting pause. */
const POSTING_PAUSE_MS = 10 * 60_000;
/** How many of the user's latest submissions a lookup reads (Reddit's page limit is 100). */
export const LOOKUP_LIMIT = 25;

/** What POST /api/submit answers for a created post. */
export interface Submitted {
  /** The fullname (`t3_<id>`): what Reddit's other calls (delete, info) take. */
  name: string;
  url: string | null;
}

/** One of the user's submissions, as the lookup of a lost answer compares them. */
export interface Submission {
  name: string;
  title: string;
  subreddit: string;
  url: string | null;
  /** Epoch ms. */
  createdAt: number;
}

export function createRedditApi(
  settings: RedditSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  async function call(
    method: 'GET' | 'POST',
    path: string,
    token: string,
    what: string,
    form?: Record<string, string>,
  ): Promise<HttpResult> {
    const payload = formPayload(form);
    const response = await apiCall(
      runtime,
      signal,
      {
        url: `${settings.apiBaseUrl}${path}`,
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'user-agent': settings.userAgent,
          accept: 'application/json',
          ...payload.headers,
        },
        body: payload.body,
      },
      `${LABEL} ${what}`,
    );
    if (response.status >= 200 && response.status < 300) return response;
    throw redditFailure(response, `${LABEL} ${what}`);
  }

  return {
    /** POST /api/submit (form, api_type=json): the post, or Reddit's refusal thrown. */
    async submit(token: string, fields: Record<string, string>): Promise<Submitted> {
      const response = await call('POST', '/api/submit', token, 'submit', {
        ...fields,
        api_type: 'json',
      });
      return submittedOf(response);
    },

    /** GET /api/v1/me: the user's name (for a connection stored without it). */
    async username(token: string): Promise<string> {
      const response = await call('GET', '/api/v1/me', token, 'account (me)');
      const name = isRecord(response.json) ? asString(response.json.name) : undefined;
      if (!name) throw fail('invalid_response', `${LABEL} /api/v1/me gave no name`, true);
      return name;
    },

    /** GET /user/{name}/submitted: the user's latest submissions, newest first. */
    async submitted(token: string, username: string): Promise<Submission[]> {
      const path = `/user/${encodeURIComponent(username)}/submitted?sort=new&limit=${LOOKUP_LIMIT}&raw_json=1`;
      const response = await call('GET', path, token, `u/${username} submissions`);
      const data =
        isRecord(response.json) && isRecord(response.json.data) ? response.json.data : {};
      const children = Array.isArray(data.children) ? data.children : [];
      return children
        .map((child) => (isRecord(child) && isRecord(child.data) ? child.data : undefined))
        .filter((item) => item !== undefined)
        .map((item) => ({
          name: asString(item.name) ?? `t3_${asString(item.id) ?? ''}`,
          title: asString(item.title) ?? '',
          subreddit: asString(item.subreddit) ?? '',
          url: permalinkOf(asString(item.permalink)),
          createdAt: Math.round(Number(item.created_utc) * 1_000) || 0,
        }));
    },
  };
}

const permalinkOf = (permalink: string | undefined): string | null =>
  permalink ? `https://www.reddit.com${permalink}` : null;

/**
 * `{ json: { errors, data: { id, name, url } } }`. Reddit reports most refusals as a 200 with
 * `json.errors` entries `[CODE, message, field]`: nothing was created then. A 2xx that names no
 * post may have created one: not retried.
 */
function submittedOf(response: HttpResult): Submitted {
  const json = isRecord(response.json) && isRecord(response.json.json) ? response.json.json : {};
  const errors = Array.isArray(json.errors) ? json.errors : [];
  if (errors.length > 0) throw submitRefusal(errors);
  const data = isRecord(json.data) ? json.data : {};
  const name = asString(data.name) ?? (asString(data.id) ? `t3_${asString(data.id)}` : undefined);
  if (!name) {
    throw fail(
      'invalid_response',
      `${LABEL} submit answered ${response.status} without a post: ${excerpt(response.text)}`,
      false,
    );
  }
  return { name, url: asString(data.url) ?? null };
}

/** What Reddit's own codes mean, for the message (its message follows). */
const SUBMIT_HINTS: Readonly<Record<string, string>> = {
  SUBREDDIT_NOEXIST: 'the subreddit does not exist',
  SUBREDDIT_NOTALLOWED: 'this account may not post in the subreddit',
  SUBREDDIT_REQUIRED: 'a subreddit is required',
  NO_SELFS: 'the subreddit takes no text posts',
  NO_LINKS: 'the subreddit takes no link posts',
  ALREADY_SUB: 'this link was already submitted to the subreddit',
  SUBMIT_VALIDATION_FLAIR_REQUIRED:
    'the subreddit requires a flair (platform_options.reddit.flair_id)',
  BAD_URL: 'the link is not a URL Reddit accepts',
  TOO_LONG: 'a field is too long',
  NO_TEXT: 'a required field is empty',
  USER_REQUIRED: 'Reddit did not take the token as a user',
};

/**
 * The first `json.errors` entry as the target's failure, with Reddit's code: RATELIMIT ("you
 * are doing that too much. try again in 9 minutes.") is a wait, every other one final.
 */
export function submitRefusal(errors: readonly unknown[]): Error {
  const first = Array.isArray(errors[0]) ? errors[0] : [];
  const code = asString(first[0]) ?? 'reddit_error';
  const message = asString(first[1]) ?? '';
  const field = asString(first[2]);
  const detail = `${LABEL} refused the post: ${code}${message ? `: ${message}` : ''}${field ? ` (field ${field})` : ''}`;
  if (code === 'RATELIMIT') {
    return throttled(code, detail, new Date(Date.now() + waitNamedIn(message)));
  }
  const hint = SUBMIT_HINTS[code];
  return fail(code, hint ? `${detail}: ${hint}` : detail, false);
}

/** "try again in 9 minutes" / "Take a break for 30 seconds": that wait, else the posting pause. */
export function waitNamedIn(message: string): number {
  const match = /(\d+)\s*(second|minute|hour)/i.exec(message);
  if (!match) return POSTING_PAUSE_MS;
  const unit = (match[2] ?? '').toLowerCase();
  const size = unit === 'second' ? 1_000 : unit === 'minute' ? 60_000 : 3_600_000;
  return Number(match[1]) * size;
}

/**
 * When a 429 may be retried: Retry-After when sent, else `X-Ratelimit-Reset` (seconds until the
 * window resets), else a minute.
 */
export function redditRetryAt(headers: IncomingHttpHeaders, now = Date.now()): Date {
  const reset = header(headers, 'x-ratelimit-reset')?.trim();
  const seconds = reset !== undefined && /^\d+(\.\d+)?$/.test(reset) ? Number(reset) : undefined;
  return retryAtFrom(
    headers,
    seconds === undefined ? REDDIT_THROTTLE_WAIT_MS : seconds * 1_000,
    now,
  );
}

/**
 * A refused HTTP call: `{ message, error: <status>, reason? }` (or an HTML page). 401 is a
 * rejected token (renewed once), 429 a wait, 5xx retryable, any other status final.
 */
export function redditFailure(response: HttpResult, what: string): Error {
  const body = isRecord(response.json) ? response.json : {};
  const reason = asString(body.reason);
  const code = reason ? `reddit_${reason.toLowerCase()}` : `http_${response.status}`;
  const message = asString(body.message) || excerpt(response.text);
  const detail = `${what}: HTTP ${response.status}${message ? `: ${message}` : ''}${reason ? ` (${reason})` : ''}`;
  if (response.status === 401) return new TokenRejected(code, detail);
  if (response.status === 429) return throttled(code, detail, redditRetryAt(response.headers));
  if (response.status === 403) {
    return fail(
      code,
      `${detail} (the token needs the submit scope; the account may be suspended or banned)`,
      false,
    );
  }
  return fail(code, detail, response.status >= 500 || response.status === 408);
}

/**
 * POST {auth host}/api/v1/access_token (form) with HTTP Basic client_id:client_secret and our
 * User-Agent: the code exchange and the refresh share it. Reddit answers some refusals (a used
 * code) with a 200 and `{ error }`, which the shared reading takes as refusals too; a refused
 * client is a 401 `{ message, error: 401 }`, whose numeric `error` becomes `http_401`. Null when
 * the client id or secret is not set.
 */
export function redditTokenEndpoint(
  settings: RedditSettings,
  runtime: PublisherRuntime,
): TokenEndpoint | null {
  const { clientId, clientSecret } = settings;
  const configured = Boolean(clientId && clientSecret);
  const endpoint = clientTokenEndpoint(
    runtime,
    `${settings.authBaseUrl}/api/v1/access_token`,
    {},
    {
      configured,
      headers: {
        'user-agent': settings.userAgent,
        ...(configured ? { authorization: basicAuth(clientId ?? '', clientSecret ?? '') } : {}),
      },
    },
  );
  if (!endpoint) return null;
  return async (fields, signal, what) => {
    try {
      return await endpoint(fields, signal, what);
    } catch (error) {
      if (error instanceof OAuthStepError && /^\d+$/.test(error.code)) {
        throw new OAuthStepError(`http_${error.code}`, error.message, error.kind);
      }
      throw error;
    }
  };
}

/** grant_type=refresh_token; the stored refresh token stays valid when none comes back. */
export const redditRenewal = (
  settings: RedditSettings,
  runtime: PublisherRuntime,
): TokenRenewal | null => refreshGrant(redditTokenEndpoint(settings, runtime), LABEL);

/** The publisher's renewal on a 401: the same request as the connector's refresh. */
export const redditRefresher = (settings: RedditSettings, runtime: PublisherRuntime) =>
  publisherRefresher(redditRenewal(settings, runtime));
