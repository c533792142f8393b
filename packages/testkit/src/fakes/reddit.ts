// A local Reddit (docs/platforms.md#reddit): the OAuth flow on the "www" paths (consent at
// /api/v1/authorize, tokens at POST /api/v1/access_token with HTTP Basic client authentication),
// and the "oauth" API on the same server: GET /api/v1/me, POST /api/submit (form, api_type=json)
// answering refusals as a 200 with `json.errors`, GET /user/{name}/submitted (a Listing, newest
// first). Every API or token request without a User-Agent is answered 429, as Reddit treats
// anonymous clients.

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

/** Where a script applies. */
export type RedditCall = 'token' | 'me' | 'submit' | 'submitted';

export type RedditScript =
  /** The next `times` matching calls answer this HTTP status and body (with `headers`). */
  | {
      status: number;
      body: unknown;
      headers?: Record<string, string>;
      on?: RedditCall;
      times?: number;
    }
  /** The next submits answer 200 with this `json.errors` entry ([code, message, field]). */
  | { submitError: [string, string, string]; times?: number }
  /** The next `times` matching calls get their connection dropped, unanswered, not acted on. */
  | { drop: true; on?: RedditCall; times?: number }
  /** The next submit is acted on, then its connection dropped before the answer. */
  | { dropAfterCreate: true; times?: number };

export interface RedditSubmission {
  id: string;
  name: string;
  subreddit: string;
  kind: 'self' | 'link';
  title: string;
  selftext: string;
  url: string | null;
  flair_id: string | null;
  nsfw: boolean;
  spoiler: boolean;
  created_utc: number;
  permalink: string;
  author: string;
}

export interface FakeRedditOptions {
  /** The app's id and secret (default reddit-client-id / reddit-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  /** Submissions accepted before POST /api/submit answers 429 with the X-Ratelimit-* headers. */
  submitLimit?: number;
}

export interface FakeReddit extends FakeServer {
  oauth: FakeOAuthProvider;
  /** Who consents (GET /api/v1/me); the author of every submission. */
  user: { id: string; name: string };
  /** Subreddits that exist (by lower-case name), and whether each requires a flair. */
  subreddits: Map<string, { name: string; flairRequired: boolean }>;
  submissions: RedditSubmission[];
  script(step: RedditScript): void;
  /** Further API calls with this access token answer 401. */
  expireAccessToken(token: string): void;
  /** Mutable: the 429 threshold of POST /api/submit. */
  submitLimit: number | undefined;
}

const TITLE_MAX = 300;
const TEXT_MAX = 40_000;
const unauthorized = { message: 'Unauthorized', error: 401 };

function callOf(method: string, path: string): RedditCall | undefined {
  if (path === '/api/v1/access_token' && method === 'POST') return 'token';
  if (path === '/api/v1/me' && method === 'GET') return 'me';
  if (path === '/api/submit' && method === 'POST') return 'submit';
  if (/^\/user\/[^/]+\/submitted$/.test(path) && method === 'GET') return 'submitted';
  return undefined;
}

function basicCredentials(request: IncomingMessage) {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return {
    clientId: decodeURIComponent(decoded.slice(0, colon)),
    clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 50);

export async function startFakeReddit(options: FakeRedditOptions = {}): Promise<FakeReddit> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<RedditScript>();
  const expired = new Set<string>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'reddit-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'reddit-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 86_400,
  });
  const user = { id: '1abcd2ef', name: 'fake_redditor' };
  const subreddits = new Map([
    ['test', { name: 'test', flairRequired: false }],
    ['socialpublisher', { name: 'SocialPublisher', flairRequired: false }],
    ['flairsonly', { name: 'FlairsOnly', flairRequired: true }],
  ]);
  const submissions: RedditSubmission[] = [];
  const state = { submitLimit: options.submitLimit };
  let sequence = 0;

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const method = request.method ?? 'GET';
    const call = callOf(method, url.pathname);
    if (url.pathname === '/api/v1/authorize' && method === 'GET') {
      const duration = url.searchParams.get('duration');
      if (duration !== 'permanent' && duration !== 'temporary') {
        return sendJson(response, 400, { error: 'invalid_request', message: 'bad duration' });
      }
      return answerConsent(response, oauth.authorize(consentQueryOf(url.searchParams)));
    }
    // Apps must name themselves (the consent page is a browser's, which always does).
    if (!request.headers['user-agent']) {
      response.writeHead(429, { 'content-type': 'text/html' }).end('<h1>Too Many Requests</h1>');
      return;
    }
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'dropAfterCreate' in scripted) {
      const lost = { writeHead: () => lost, end: () => lost, setHeader: () => lost };
      submit(lost as unknown as ServerResponse, body);
      return dropConnection(request);
    }
    if (scripted && 'submitError' in scripted) {
      return sendJson(response, 200, { json: { errors: [scripted.submitError] } });
    }
    if (scripted) return sendJson(response, scripted.status, scripted.body, scripted.headers);
    if (call === 'token') return token(request, response, body);

    const accessToken = bearerToken(request.headers);
    const issued = oauth.issued.some((t) => t.accessToken === accessToken);
    // Any token a test brings along acts for the user; one the fake issued must still be live.
    if (
      !accessToken ||
      expired.has(accessToken) ||
      (issued && !oauth.isValidAccessToken(accessToken))
    ) {
      return sendJson(response, 401, unauthorized);
    }
    switch (call) {
      case 'me':
        return sendJson(response, 200, {
          id: user.id,
          name: user.name,
          is_employee: false,
          link_karma: 1,
          created_utc: 1_600_000_000,
        });
      case 'submit':
        return submit(response, body);
      case 'submitted':
        return submitted(response, url);
      default:
        return sendJson(response, 404, { message: 'Not Found', error: 404 });
    }
  }

  function token(request: IncomingMessage, response: ServerResponse, body: unknown) {
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;
    const client = basicCredentials(request);
    if (!client) return sendJson(response, 401, unauthorized);
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
    if (answer === undefined) return sendJson(response, 200, { error: 'unsupported_grant_type' });
    if (!answer.ok) {
      if (answer.error === 'invalid_client') return sendJson(response, 401, unauthorized);
      // Reddit answers a bad code or refresh token with a 200 and only `error`.
      if (answer.scripted)
        return sendJson(response, answer.status, {
          error: answer.error,
          message: answer.description,
        });
      return sendJson(response, 200, { error: answer.error });
    }
    sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      token_type: 'bearer',
      expires_in: answer.tokens.expiresIn,
      ...(answer.tokens.refreshToken === null ? {} : { refresh_token: answer.tokens.refreshToken }),
      scope: answer.tokens.scopes.join(' '),
    });
  }

  function submit(response: ServerResponse, body: unknown) {
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;
    const refuse = (code: string, message: string, field: string) =>
      sendJson(response, 200, { json: { errors: [[code, message, field]] } });
    if (form.api_type !== 'json') return sendJson(response, 200, { jquery: [] });
    const sub = subreddits.get((form.sr ?? '').toLowerCase());
    if (!form.sr) return refuse('SUBREDDIT_REQUIRED', 'you must specify a subreddit', 'sr');
    if (!sub) return refuse('SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr');
    const title = form.title ?? '';
    if (title.trim() === '') return refuse('NO_TEXT', 'we need something here', 'title');
    if (Array.from(title).length > TITLE_MAX) {
      return refuse('TOO_LONG', `this is too long (max: ${TITLE_MAX})`, 'title');
    }
    const kind = form.kind === 'link' ? 'link' : form.kind === 'self' ? 'self' : undefined;
    if (!kind) return refuse('INVALID_OPTION', "that option isn't valid", 'kind');
    const text = form.text ?? '';
    if (Array.from(text).length > TEXT_MAX) {
      return refuse('TOO_LONG', `this is too long (max: ${TEXT_MAX})`, 'text');
    }
    const link = form.url ?? '';
    if (kind === 'link' && !/^https?:\/\//.test(link))
      return refuse('NO_URL', 'a url is required', 'url');
    if (kind === 'link' && submissions.some((s) => s.url === link && s.subreddit === sub.name)) {
      return refuse('ALREADY_SUB', 'that link has already been submitted', 'url');
    }
    if (sub.flairRequired && !form.flair_id) {
      return refuse(
        'SUBMIT_VALIDATION_FLAIR_REQUIRED',
        'Your post must contain post flair.',
        'flair',
      );
    }
    if (state.submitLimit !== undefined && submissions.length >= state.submitLimit) {
      return sendJson(
        response,
        429,
        { message: 'Too Many Requests', error: 429 },
        {
          'x-ratelimit-used': String(state.submitLimit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': '42',
        },
      );
    }
    sequence += 1;
    const id = `fk${(1_000_000 + sequence).toString(36)}`;
    const permalink = `/r/${sub.name}/comments/${id}/${slug(title)}/`;
    const stored: RedditSubmission = {
      id,
      name: `t3_${id}`,
      subreddit: sub.name,
      kind,
      title,
      selftext: kind === 'self' ? text : '',
      url: kind === 'link' ? link : `https://www.reddit.com${permalink}`,
      flair_id: form.flair_id ?? null,
      nsfw: form.nsfw === 'true',
      spoiler: form.spoiler === 'true',
      created_utc: Date.now() / 1_000,
      permalink,
      author: user.name,
    };
    submissions.push(stored);
    return sendJson(response, 200, {
      json: {
        errors: [],
        data: { url: `https://www.reddit.com${permalink}`, drafts_count: 0, id, name: stored.name },
      },
    });
  }

  function submitted(response: ServerResponse, url: URL) {
    const name = decodeURIComponent(url.pathname.split('/')[2] ?? '');
    if (name.toLowerCase() !== user.name.toLowerCase()) {
      return sendJson(response, 404, { message: 'Not Found', error: 404 });
    }
    const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 25)));
    const children = [...submissions]
      .reverse()
      .slice(0, limit)
      .map((s) => ({ kind: 't3', data: s }));
    return sendJson(response, 200, {
      kind: 'Listing',
      data: { after: null, dist: children.length, children, before: null },
    });
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    oauth,
    user,
    subreddits,
    submissions,
    script(step) {
      const on = 'on' in step ? step.on : undefined;
      const matches = (r: RecordedRequest) => {
        const call = callOf(r.method, r.path);
        if ('dropAfterCreate' in step || 'submitError' in step) return call === 'submit';
        // OAuth calls are scripted only when asked for by name.
        return on === undefined ? call !== 'token' && call !== undefined : call === on;
      };
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (accessToken) => expired.add(accessToken),
    get submitLimit() {
      return state.submitLimit;
    },
    set submitLimit(value) {
      state.submitLimit = value;
    },
  };
}
