// A local X API v2 for the OAuth 2.0 Authorization Code flow with PKCE: consent
// (/i/oauth2/authorize), tokens (/2/oauth2/token, HTTP Basic for confidential clients,
// rotating refresh tokens) and identity (/2/users/me). One base URL serves the three hosts.
// Posting and media are in x-posts.ts, deletes in x-deletes.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
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
import { answerConsent, consentQueryOf, FakeOAuthProvider, type TokenAnswer } from './oauth.ts';
import { createXConversations } from './x-conversations.ts';
import { createXDeletes, type XDeleting } from './x-deletes.ts';
import { createXReading, type XReading } from './x-metrics.ts';
import { createXPosting, type XMedia, type XPostingOptions, type XTweet } from './x-posts.ts';

export type { XDeleting, XMedia, XReading, XTweet };

/** X's problem answer (RFC 7807-like) on the API host. */
export interface XProblem {
  status: number;
  title: string;
  detail: string;
  type?: string;
}

export type XScript =
  /**
   * The next `times` API calls (to `path` if given; OAuth paths excluded) answer this problem,
   * with `headers` (x-rate-limit-reset on a 429...).
   */
  | { error: XProblem; path?: string; times?: number; headers?: Record<string, string> }
  /** The next `times` API calls (to `path` if given) get their connection dropped. */
  | { drop: true; path?: string; times?: number }
  /** The next call to `path` is acted on, but its answer never comes (the client times out). */
  | { hangAfterCreate: true; path?: string; times?: number };

export interface FakeXOptions extends XPostingOptions {
  oauth?: { clientId: string; clientSecret: string };
  /**
   * Confidential client (default true): the token endpoint wants HTTP Basic client_id:secret
   * and answers 401 unauthorized_client without it. false: a public client (client_id in the
   * form, no secret).
   */
  confidential?: boolean;
}

export interface FakeX extends FakeServer {
  /** Consent, code exchange and refresh (PKCE required, refresh tokens rotate). */
  oauth: FakeOAuthProvider;
  /** Who consents: GET /2/users/me answers it. */
  user: { id: string; name: string; username: string };
  script(step: XScript): void;
  /** Further API calls with this access token answer 401. */
  expireAccessToken(token: string): void;
  /** Posts created, in order (what a test counts duplicates on). */
  tweets: XTweet[];
  /** Uploaded media by id. */
  media: Map<string, XMedia>;
  /** The next video initialized fails processing with this message, once its polls are done. */
  failNextVideo(message: string): void;
  /**
   * GET /2/tweets (x-metrics.ts): `numbers` per post (X's names; setting some makes the post
   * exist), `authored` (who wrote a post a test set numbers for), `nonPublic` (X's rule, every
   * post refused, or the call refused with 403).
   */
  metrics: XReading;
  /** DELETE /2/tweets/:id (x-deletes.ts): the ids deleted, and a delay knob for slow deletes. */
  deletes: XDeleting;
  /**
   * Replies by other users (x-conversations.ts): `addReply(postId, text)` makes one; the
   * conversation search shows it, and `hidden` holds the replies hidden by PUT .../hidden.
   */
  addReply(replyTo: string, text: string): XTweet;
  hidden: Set<string>;
  /**
   * Each reply of ours (POST /2/tweets with `reply`) waits `ms` (default 0) before X acts on it
   * and answers; it is acted on whether or not the client is still there (the fault suite kills
   * the API mid-reply).
   */
  replyDelay: { ms: number };
}

/** Where an answer goes that the client will never see. */
class DiscardedResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  override _write(_chunk: unknown, _encoding: string, done: () => void) {
    done();
  }
  setHeader() {
    return this;
  }
  writeHead() {
    return this;
  }
}

const OAUTH_PATHS = new Set(['/i/oauth2/authorize', '/2/oauth2/token']);

const problem = (p: XProblem) => ({
  title: p.title,
  type: p.type ?? 'about:blank',
  status: p.status,
  detail: p.detail,
});
const UNAUTHORIZED: XProblem = { status: 401, title: 'Unauthorized', detail: 'Unauthorized' };

/** HTTP Basic credentials, when the request has them. */
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

export async function startFakeX(options: FakeXOptions = {}): Promise<FakeX> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<XScript>();
  const expired = new Set<string>();
  const confidential = options.confidential ?? true;
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'x-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'x-client-secret',
    pkce: 'required',
    accessTokenTtlSeconds: 7_200,
    rotateRefreshTokens: true,
  });
  const user = { id: '1460000000000000001', name: 'Fake Account', username: 'fake_account' };
  const posting = createXPosting(options, () => user.id);
  const reading = createXReading(posting.tweets, () => user.id);
  const deleting = createXDeletes(posting.tweets, () => user.id);
  const conversations = createXConversations(posting.tweets, () => user);
  const replyDelay = { ms: 0 };

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const multipart = (request.headers['content-type'] ?? '').startsWith('multipart/');
    // Upload bodies are not kept: their size stands in.
    const body = multipart
      ? { bytes: raw.length }
      : parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const replying = (body as { reply?: unknown } | null)?.reply !== undefined;
    if (
      replyDelay.ms > 0 &&
      request.method === 'POST' &&
      url.pathname === '/2/tweets' &&
      replying
    ) {
      await new Promise((resolve) => setTimeout(resolve, replyDelay.ms));
    }
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;

    if (url.pathname === '/i/oauth2/authorize') return authorize(response, url.searchParams);
    if (url.pathname === '/2/oauth2/token' && request.method === 'POST') {
      return token(request, response, form);
    }
    return api(request, response, url, recorded, raw);
  }

  function authorize(response: ServerResponse, q: URLSearchParams) {
    if (q.get('response_type') !== 'code') {
      return sendJson(response, 400, {
        error: 'invalid_request',
        error_description: 'response_type must be code',
      });
    }
    // X shows an error page on a refusal; its wording is not part of any contract.
    answerConsent(response, oauth.authorize(consentQueryOf(q)));
  }

  function token(request: IncomingMessage, response: ServerResponse, form: Record<string, string>) {
    const refuse = (status: number, error: string, description: string) =>
      sendJson(response, status, { error, error_description: description });
    const basic = basicCredentials(request);
    if (confidential && !basic) {
      return refuse(401, 'unauthorized_client', 'Missing valid authorization header');
    }
    const client = basic ?? { clientId: form.client_id, clientSecret: oauth.options.clientSecret };
    let answer: TokenAnswer;
    let what: 'authorization code' | 'token';
    if (form.grant_type === 'authorization_code') {
      what = 'authorization code';
      answer = oauth.exchangeCode({
        code: form.code,
        ...client,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
      });
    } else if (form.grant_type === 'refresh_token') {
      what = 'token';
      answer = oauth.refresh({ refreshToken: form.refresh_token, ...client });
    } else {
      return refuse(400, 'invalid_request', 'Missing required parameter [grant_type].');
    }
    if (!answer.ok) {
      // X does not say invalid_grant: a used, unknown or mismatched code or refresh token is
      // `invalid_request` "Value passed for the ... was invalid." (scripted refusals pass as is).
      if (answer.error === 'invalid_grant' && !answer.scripted) {
        return refuse(400, 'invalid_request', `Value passed for the ${what} was invalid.`);
      }
      if (answer.error === 'invalid_client' && !answer.scripted) {
        return refuse(401, 'unauthorized_client', 'Missing valid authorization header');
      }
      return refuse(answer.status, answer.error, answer.description);
    }
    sendJson(response, 200, {
      token_type: 'bearer',
      expires_in: answer.tokens.expiresIn,
      access_token: answer.tokens.accessToken,
      scope: answer.tokens.scopes.join(' '),
      refresh_token: answer.tokens.refreshToken ?? undefined,
    });
  }

  function api(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    recorded: RecordedRequest,
    raw: Buffer,
  ) {
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'hangAfterCreate' in scripted) {
      // X acts on the request, but the answer never comes (a timeout or a killed worker).
      posting.handle(
        request,
        new DiscardedResponse() as unknown as ServerResponse,
        url,
        raw,
        recorded.body,
      );
      return;
    }
    if (scripted) {
      return sendJson(response, scripted.error.status, problem(scripted.error), scripted.headers);
    }
    const accessToken = bearerToken(request.headers);
    if (!accessToken || expired.has(accessToken))
      return sendJson(response, 401, problem(UNAUTHORIZED));
    if (url.pathname === '/2/users/me' && request.method === 'GET') {
      if (!oauth.isValidAccessToken(accessToken))
        return sendJson(response, 401, problem(UNAUTHORIZED));
      return sendJson(response, 200, { data: user });
    }
    // Publishing takes the fake's own live tokens and any token a test brings along; a token
    // the fake issued and rotated away is refused.
    const issued = oauth.issued.some((tokens) => tokens.accessToken === accessToken);
    if (issued && !oauth.isValidAccessToken(accessToken)) {
      return sendJson(response, 401, problem(UNAUTHORIZED));
    }
    if (url.pathname === '/2/tweets' && request.method === 'GET') {
      return reading.lookup(response, url.searchParams);
    }
    if (posting.handle(request, response, url, raw, recorded.body)) return;
    if (deleting.handle(request.method ?? 'GET', url.pathname, response)) return;
    if (conversations.handle(request, response, url, recorded.body)) return;
    sendJson(
      response,
      404,
      problem({ status: 404, title: 'Not Found Error', detail: `no route ${url.pathname}` }),
    );
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    oauth,
    user,
    script(step) {
      const path = step.path;
      const matches = (r: RecordedRequest) =>
        !OAUTH_PATHS.has(r.path) && (path === undefined || r.path === path);
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (token) => expired.add(token),
    tweets: posting.tweets,
    media: posting.media,
    failNextVideo: posting.failNextVideo,
    metrics: reading.reading,
    deletes: deleting.state,
    addReply: (replyTo, text) => conversations.addReply(replyTo, text),
    hidden: conversations.hidden,
    replyDelay,
  };
}
