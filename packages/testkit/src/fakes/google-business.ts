// A local Google Business Profile (docs/platforms.md#google-business-profile) on one server:
// Google's OAuth (consent at /o/oauth2/v2/auth, POST /token with the client id and secret in the
// form), the Account Management API (GET /v1/accounts), the Business Information API
// (GET /v1/accounts/{a}/locations?readMask=...) and the v4 local posts (POST and GET
// /v4/accounts/{a}/locations/{l}/localPosts). Errors are Google's `{ error: { code, message,
// status } }`. Tests point the consent, token, accounts, locations and API hosts all here.

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerToken,
  dropConnection,
  type FakeServer,
  listen,
  parseBody,
  type RecordedRequest,
  readBody,
  record,
  ScriptQueue,
  sendJson,
} from './http.ts';
import { answerConsent, consentQueryOf, FakeOAuthProvider } from './oauth.ts';

/** Google's errors as the fake gives them (HTTP status, gRPC status, message). */
export const GOOGLE_BUSINESS_ERRORS = {
  unauthenticated: {
    status: 401,
    code: 'UNAUTHENTICATED',
    message: 'Request had invalid authentication credentials.',
  },
  permissionDenied: {
    status: 403,
    code: 'PERMISSION_DENIED',
    message: 'The caller does not have permission',
  },
  notFound: { status: 404, code: 'NOT_FOUND', message: 'Requested entity was not found.' },
  resourceExhausted: {
    status: 429,
    code: 'RESOURCE_EXHAUSTED',
    message: "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'.",
  },
  invalidArgument: {
    status: 400,
    code: 'INVALID_ARGUMENT',
    message: 'Request contains an invalid argument.',
  },
  unavailable: {
    status: 503,
    code: 'UNAVAILABLE',
    message: 'The service is currently unavailable.',
  },
} as const;

export interface GoogleBusinessError {
  status: number;
  code: string;
  message: string;
}

/** Where a script applies. */
export type GoogleBusinessCall = 'token' | 'accounts' | 'locations' | 'createPost' | 'listPosts';

export type GoogleBusinessScript =
  | {
      error: GoogleBusinessError;
      on?: GoogleBusinessCall;
      times?: number;
      retryAfterSeconds?: number;
    }
  | { drop: true; on?: GoogleBusinessCall; times?: number }
  /** The next post is created, then its connection dropped before the answer. */
  | { dropAfterCreate: true; times?: number };

export interface GoogleBusinessAccount {
  name: string;
  accountName: string;
  locations: Array<{ name: string; title: string }>;
}

export interface GoogleLocalPost {
  name: string;
  languageCode: string;
  summary: string;
  topicType: string;
  callToAction?: { actionType: string; url?: string };
  media?: Array<{ name: string; mediaFormat: string; sourceUrl: string; googleUrl: string }>;
  createTime: string;
  updateTime: string;
  state: 'LIVE' | 'PROCESSING' | 'REJECTED';
  searchUrl: string;
}

export interface FakeGoogleBusinessOptions {
  oauth?: { clientId: string; clientSecret: string };
  /** Posts created before POST .../localPosts answers 429 RESOURCE_EXHAUSTED. */
  postLimit?: number;
}

export interface FakeGoogleBusiness extends FakeServer {
  oauth: FakeOAuthProvider;
  /** The user's accounts and their locations (mutable: add some before a consent). */
  accounts: GoogleBusinessAccount[];
  posts: GoogleLocalPost[];
  script(step: GoogleBusinessScript): void;
  /** Further API calls with this access token answer 401. */
  expireAccessToken(token: string): void;
  /** The next post created comes back `REJECTED`. */
  rejectNextPost(): void;
  postLimit: number | undefined;
}

const SUMMARY_MAX = 1_500;
const ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'];
const POSTS_PATH = /^\/v4\/(accounts\/[^/]+)\/(locations\/[^/]+)\/localPosts$/;

function callOf(method: string, path: string): GoogleBusinessCall | undefined {
  if (path === '/token' && method === 'POST') return 'token';
  if (path === '/v1/accounts' && method === 'GET') return 'accounts';
  if (/^\/v1\/accounts\/[^/]+\/locations$/.test(path) && method === 'GET') return 'locations';
  if (POSTS_PATH.test(path)) return method === 'POST' ? 'createPost' : 'listPosts';
  return undefined;
}

const googleError = (
  response: ServerResponse,
  error: GoogleBusinessError,
  headers: Record<string, string> = {},
) =>
  sendJson(
    response,
    error.status,
    { error: { code: error.status, message: error.message, status: error.code } },
    headers,
  );

/** One page of `items` from `pageToken` (an offset here), with the next token when more remain. */
function page<T>(items: T[], url: URL, max: number, key: string): Record<string, unknown> {
  const size = Math.min(max, Math.max(1, Number(url.searchParams.get('pageSize') ?? max)));
  const from = Number(url.searchParams.get('pageToken') ?? 0);
  const slice = items.slice(from, from + size);
  const next = from + size < items.length ? String(from + size) : undefined;
  return { [key]: slice, ...(next ? { nextPageToken: next } : {}) };
}

export async function startFakeGoogleBusiness(
  options: FakeGoogleBusinessOptions = {},
): Promise<FakeGoogleBusiness> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<GoogleBusinessScript>();
  const expired = new Set<string>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'google-business-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'google-business-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 3_599,
  });
  const accounts: GoogleBusinessAccount[] = [
    {
      name: 'accounts/1000000000000000001',
      accountName: 'Fake Bakery Group',
      locations: [{ name: 'locations/2000000000000000001', title: 'Fake Bakery Downtown' }],
    },
  ];
  const posts: GoogleLocalPost[] = [];
  const state = { postLimit: options.postLimit, rejectNext: false };
  let sequence = 0;

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const method = request.method ?? 'GET';
    const call = callOf(method, url.pathname);
    if (url.pathname === '/o/oauth2/v2/auth' && method === 'GET') {
      return answerConsent(response, oauth.authorize(consentQueryOf(url.searchParams)));
    }
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'dropAfterCreate' in scripted) {
      const lost = { writeHead: () => lost, end: () => lost, setHeader: () => lost };
      createPost(lost as unknown as ServerResponse, url, body);
      return dropConnection(request);
    }
    if (scripted) {
      const headers: Record<string, string> =
        scripted.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(scripted.retryAfterSeconds) };
      return googleError(response, scripted.error, headers);
    }
    if (call === 'token') return token(response, body);
    const accessToken = bearerToken(request.headers);
    const issued = oauth.issued.some((t) => t.accessToken === accessToken);
    // Any token a test brings along acts for the user; one the fake issued must still be live.
    if (
      !accessToken ||
      expired.has(accessToken) ||
      (issued && !oauth.isValidAccessToken(accessToken))
    ) {
      return googleError(response, GOOGLE_BUSINESS_ERRORS.unauthenticated);
    }
    switch (call) {
      case 'accounts':
        return sendJson(
          response,
          200,
          page(
            accounts.map(({ name, accountName }) => ({
              name,
              accountName,
              type: 'LOCATION_GROUP',
            })),
            url,
            20,
            'accounts',
          ),
        );
      case 'locations':
        return locations(response, url);
      case 'createPost':
        return createPost(response, url, body);
      case 'listPosts':
        return listPosts(response, url);
      default:
        return googleError(response, GOOGLE_BUSINESS_ERRORS.notFound);
    }
  }

  function token(response: ServerResponse, body: unknown) {
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;
    const refuse = (status: number, error: string, description: string) =>
      sendJson(response, status, { error, error_description: description });
    if (!form.client_id || !form.client_secret) {
      return refuse(401, 'invalid_client', 'The OAuth client was not found.');
    }
    const client = { clientId: form.client_id, clientSecret: form.client_secret };
    const answer =
      form.grant_type === 'authorization_code'
        ? oauth.exchangeCode({
            code: form.code,
            ...client,
            redirectUri: form.redirect_uri,
            codeVerifier: form.code_verifier,
          })
        : form.grant_type === 'refresh_token'
          ? oauth.refresh({ refreshToken: form.refresh_token, ...client })
          : undefined;
    if (answer === undefined) return refuse(400, 'unsupported_grant_type', 'Invalid grant_type');
    if (!answer.ok) return refuse(answer.status, answer.error, answer.description);
    return sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      expires_in: answer.tokens.expiresIn,
      ...(answer.tokens.refreshToken === null ? {} : { refresh_token: answer.tokens.refreshToken }),
      scope: answer.tokens.scopes.join(' '),
      token_type: 'Bearer',
    });
  }

  function locations(response: ServerResponse, url: URL) {
    const name = url.pathname.slice('/v1/'.length, -'/locations'.length);
    const account = accounts.find((a) => a.name === name);
    if (!account) return googleError(response, GOOGLE_BUSINESS_ERRORS.notFound);
    if (!url.searchParams.get('readMask')) {
      return googleError(response, {
        ...GOOGLE_BUSINESS_ERRORS.invalidArgument,
        message: 'Request contains an invalid argument: read_mask is required.',
      });
    }
    return sendJson(response, 200, page(account.locations, url, 100, 'locations'));
  }

  /** The account and location of a /v4 path, when the account holds the location. */
  function locationOf(url: URL) {
    const [, accountName, locationName] = POSTS_PATH.exec(url.pathname) ?? [];
    const account = accounts.find((a) => a.name === accountName);
    const found = account?.locations.some((l) => l.name === locationName);
    return found ? `${accountName}/${locationName}` : undefined;
  }

  /** What Google refuses of a new local post (a message), or undefined. */
  function invalidPost(post: Record<string, unknown>): string | undefined {
    const summary = typeof post.summary === 'string' ? post.summary : '';
    if (Array.from(summary).length > SUMMARY_MAX) return `summary is longer than ${SUMMARY_MAX}.`;
    if (post.topicType !== 'STANDARD') return 'topicType must be STANDARD here.';
    if (typeof post.languageCode !== 'string' || post.languageCode === '') {
      return 'languageCode is required.';
    }
    const media = post.media === undefined ? [] : post.media;
    if (!Array.isArray(media) || media.length > 1) return 'media takes one photo.';
    for (const item of media as Array<Record<string, unknown>>) {
      if (item?.mediaFormat !== 'PHOTO' || typeof item.sourceUrl !== 'string') {
        return 'media items need mediaFormat PHOTO and a sourceUrl.';
      }
    }
    const cta = post.callToAction as Record<string, unknown> | undefined;
    if (cta !== undefined) {
      if (!ACTION_TYPES.includes(String(cta.actionType)))
        return 'callToAction.actionType is invalid.';
      if ((cta.actionType === 'CALL') !== (cta.url === undefined)) {
        return 'callToAction.url is required, except for CALL.';
      }
    }
    if (summary === '' && media.length === 0) return 'A post needs a summary or a photo.';
    return undefined;
  }

  function createPost(response: ServerResponse, url: URL, body: unknown) {
    const parent = locationOf(url);
    if (!parent) return googleError(response, GOOGLE_BUSINESS_ERRORS.notFound);
    const post = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const invalid = invalidPost(post);
    if (invalid) {
      return googleError(response, { ...GOOGLE_BUSINESS_ERRORS.invalidArgument, message: invalid });
    }
    if (state.postLimit !== undefined && posts.length >= state.postLimit) {
      return googleError(response, GOOGLE_BUSINESS_ERRORS.resourceExhausted);
    }
    sequence += 1;
    const id = String(3_000_000_000_000_000_000n + BigInt(sequence));
    const now = new Date().toISOString();
    const media = (post.media ?? []) as Array<{ mediaFormat: string; sourceUrl: string }>;
    const stored: GoogleLocalPost = {
      name: `${parent}/localPosts/${id}`,
      languageCode: String(post.languageCode),
      summary: typeof post.summary === 'string' ? post.summary : '',
      topicType: 'STANDARD',
      ...(post.callToAction
        ? { callToAction: post.callToAction as GoogleLocalPost['callToAction'] & object }
        : {}),
      ...(media.length > 0
        ? {
            media: media.map((item, index) => ({
              name: `${parent}/media/${id}-${index}`,
              mediaFormat: item.mediaFormat,
              sourceUrl: item.sourceUrl,
              googleUrl: `https://lh3.googleusercontent.com/p/fake-${id}-${index}`,
            })),
          }
        : {}),
      createTime: now,
      updateTime: now,
      state: state.rejectNext ? 'REJECTED' : 'LIVE',
      searchUrl: `https://local.google.com/place?id=${parent.split('/').at(-1)}&use=posts&lpsid=${id}`,
    };
    state.rejectNext = false;
    posts.push(stored);
    return sendJson(response, 200, stored);
  }

  function listPosts(response: ServerResponse, url: URL) {
    const parent = locationOf(url);
    if (!parent) return googleError(response, GOOGLE_BUSINESS_ERRORS.notFound);
    const mine = posts.filter((post) => post.name.startsWith(`${parent}/`)).reverse();
    return sendJson(response, 200, page(mine, url, 100, 'localPosts'));
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    oauth,
    accounts,
    posts,
    script(step) {
      const on = 'on' in step ? step.on : undefined;
      const matches = (r: RecordedRequest) => {
        const call = callOf(r.method, r.path);
        if ('dropAfterCreate' in step) return call === 'createPost';
        // OAuth calls are scripted only when asked for by name.
        return on === undefined ? call !== 'token' && call !== undefined : call === on;
      };
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (accessToken) => expired.add(accessToken),
    rejectNextPost: () => {
      state.rejectNext = true;
    },
    get postLimit() {
      return state.postLimit;
    },
    set postLimit(value) {
      state.postLimit = value;
    },
  };
}
