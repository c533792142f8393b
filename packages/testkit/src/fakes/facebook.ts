// A local Facebook Graph API for Facebook Login with Pages, on one base URL serving the three
// hosts (www.facebook.com and graph.facebook.com): the dialog (/{version}/dialog/oauth), the code
// and long-lived exchanges (/{version}/oauth/access_token), the user's Pages with their Page
// tokens (/{version}/me/accounts), the granted permissions (/{version}/me/permissions) and
// /{version}/me. Graph errors `{ error: { message, type, code, error_subcode, fbtrace_id } }`.
// Page publishing (/{page-id}/feed, /photos, /videos) is in facebook-pages.ts.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createFacebookPages,
  type FacebookComment,
  type FacebookEngagement,
  type FacebookError,
  type FacebookPagesOptions,
  type FacebookPhoto,
  type FacebookPost,
  type FacebookVideo,
} from './facebook-pages.ts';
import {
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
import { consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import type { PostNumbers } from './post-numbers.ts';

export { FACEBOOK_ENGAGEMENT } from './facebook-pages.ts';
export type {
  FacebookComment,
  FacebookEngagement,
  FacebookError,
  FacebookPhoto,
  FacebookPost,
  FacebookVideo,
};

/**
 * Documented errors. The code-exchange subcodes (36007 expired, 36008 redirect_uri mismatch,
 * 36009 used) are as commonly reported, unconfirmed against Meta's reference.
 */
export const FACEBOOK_ERRORS = {
  tokenInvalid: {
    code: 190,
    type: 'OAuthException',
    message: 'Invalid OAuth access token - Cannot parse access token',
  },
  sessionInvalidated: {
    code: 190,
    subcode: 460,
    type: 'OAuthException',
    message:
      'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
  },
  codeUsed: {
    code: 100,
    subcode: 36009,
    type: 'OAuthException',
    message: 'This authorization code has been used.',
  },
  redirectMismatch: {
    code: 100,
    subcode: 36008,
    type: 'OAuthException',
    message:
      'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
  },
  badSecret: { code: 1, type: 'OAuthException', message: 'Error validating client secret.' },
  badAppId: {
    code: 101,
    type: 'OAuthException',
    message: 'Error validating application. Invalid application ID.',
  },
  unknown: {
    code: 1,
    type: 'OAuthException',
    message: 'An unknown error has occurred.',
    isTransient: true,
    status: 500,
  },
  throttled: {
    code: 4,
    type: 'OAuthException',
    message: 'Application request limit reached',
    isTransient: true,
  },
} as const satisfies Record<string, FacebookError>;

/** A Page the consenting user manages (and granted to the app). */
export interface FacebookPage {
  id: string;
  name: string;
  category?: string;
  tasks?: string[];
}

/** Which call a script entry applies to. */
export type FacebookCall =
  | 'exchange'
  | 'longLived'
  | 'accounts'
  | 'permissions'
  | 'me'
  | 'other'
  | 'any';

/** Which requests a script entry applies to (all given conditions hold), and how many. */
export interface FacebookScriptMatch {
  on?: FacebookCall;
  /** The request path ends with this. */
  path?: string;
  /** Each of these query or form parameters has exactly this value (e.g. one photo's `url`). */
  params?: Record<string, string>;
  /** Matching requests the entry applies to (default 1). */
  times?: number;
}

export type FacebookScript = FacebookScriptMatch &
  /** Matching calls answer this error. */
  (
    | { error: FacebookError }
    /** Matching calls get their connection dropped without an answer (nothing is created). */
    | { drop: true }
    /** The call is acted on, but its answer never comes (the client times out). */
    | { hangAfterCreate: true }
    /** The call is acted on, then its connection is dropped before the answer. */
    | { dropAfterCreate: true }
  );

export interface FakeFacebookOptions extends FacebookPagesOptions {
  /** The app's id and secret (default facebook-client-id / facebook-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  /** The Pages the user grants (default one Page). */
  pages?: FacebookPage[];
  /** Permissions the user declined in the dialog (`status: declined` in /me/permissions). */
  declined?: string[];
  /** /me/accounts page size (Graph's default 25): small values exercise the paging. */
  accountsPageSize?: number;
  /**
   * Page calls only with tokens this fake issued (or put in `pageTokens`); any other token is
   * error 190 as Graph answers it. Default false: any token the tests bring acts for any Page.
   */
  strictTokens?: boolean;
}

export interface FakeFacebook extends FakeServer {
  script(step: FacebookScript): void;
  /** The consent and code exchange: script denials and refusals here. */
  oauth: FakeOAuthProvider;
  /** Who consents (/me). */
  user: { id: string; name: string };
  /** The Pages /me/accounts answers: replace its content to grant 0, 1 or several. */
  pages: FacebookPage[];
  /** Permissions declined in the dialog (edit to script the next consent's answer). */
  declined: string[];
  /** Page token -> Page id, for every Page token handed out. */
  pageTokens: Map<string, string>;
  /** Long-lived user tokens issued, in order. */
  longLivedTokens: string[];
  /** Further calls with this token (user or Page) answer error 190. */
  expireAccessToken(token: string): void;
  /** The user removed the app: every user and Page token issued so far answers 190. */
  deauthorize(): void;
  /** Page posts created (feed, published photos, videos), in order. */
  posts: FacebookPost[];
  /** Comments made on the Page's posts and videos, in order. */
  comments: FacebookComment[];
  /** Someone else comments on a post of the Page, or answers a comment (`objectId`). */
  addComment(objectId: string, message: string): FacebookComment;
  photos: Map<string, FacebookPhoto>;
  videos: Map<string, FacebookVideo>;
  /** The next video created answers `video_status: error` with this message once processed. */
  failNextVideo(message: string): void;
  /**
   * What GET /{post-or-video-id}?fields=reactions.summary(total_count),... answers per object:
   * `set` (reactions, comments, shares; 0 or null shares are left out, as Graph does; setting
   * makes the object exist), `remove` (gone: error 100/33); published posts get derived numbers.
   */
  engagement: PostNumbers<FacebookEngagement>;
}

const isVersion = (segment: string | undefined) =>
  segment !== undefined && /^v\d+\.\d+$/.test(segment);

const callOf = (method: string, path: string, query: Record<string, string>): FacebookCall => {
  const [, ...segments] = path.split('/').filter(Boolean);
  const route = segments.join('/');
  if (method === 'GET' && route === 'oauth/access_token') {
    return query.grant_type === 'fb_exchange_token' ? 'longLived' : 'exchange';
  }
  if (method === 'GET' && route === 'me/accounts') return 'accounts';
  if (method === 'GET' && route === 'me/permissions') return 'permissions';
  if (method === 'GET' && route === 'me') return 'me';
  return 'other';
};

/** Query and form parameters of a recorded request, as Graph reads them (the form wins). */
const paramsOf = (r: RecordedRequest): Record<string, unknown> => ({
  ...r.query,
  ...(typeof r.body === 'object' && r.body !== null ? (r.body as Record<string, unknown>) : {}),
});

/** Seconds a long-lived user token lives (about 60 days). */
export const FACEBOOK_LONG_LIVED_EXPIRES_IN = 5_183_944;

export async function startFakeFacebook(options: FakeFacebookOptions = {}): Promise<FakeFacebook> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<FacebookScript>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'facebook-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'facebook-client-secret',
    // Meta's login service binds a code to the challenge sent with the dialog.
    pkce: 'optional',
    accessTokenTtlSeconds: 5_400,
    issueRefreshTokens: false,
  });
  const user = { id: '10160000000000001', name: 'Fake Page Admin' };
  const pages: FacebookPage[] = options.pages ?? [
    {
      id: '102000000000001',
      name: 'Fake Bakery',
      category: 'Bakery',
      tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
    },
  ];
  const declined = [...(options.declined ?? [])];
  /** Long-lived user token -> its scopes. */
  const longLived = new Map<string, string[]>();
  const longLivedTokens: string[] = [];
  const pageTokens = new Map<string, string>();
  /** Page token -> the user token it was handed out to. */
  const tokenOwners = new Map<string, string>();
  const expired = new Set<string>();
  let traces = 0;
  const trace = () => `AfakeFb${String(++traces).padStart(6, '0')}`;
  const newToken = () => `EAA${randomBytes(30).toString('base64url')}`;

  const graphError = (
    response: ServerResponse,
    error: FacebookError,
    headers: Record<string, string> = {},
  ) =>
    sendJson(
      response,
      error.status ?? 400,
      {
        error: {
          message: error.message,
          type: error.type ?? 'OAuthException',
          code: error.code,
          ...(error.subcode === undefined ? {} : { error_subcode: error.subcode }),
          ...(error.isTransient ? { is_transient: true } : {}),
          fbtrace_id: trace(),
        },
      },
      { ...error.headers, ...headers },
    );
  const pagesApi = createFacebookPages(options, sendJson, graphError);
  const invalid = (response: ServerResponse, message: string) =>
    graphError(response, { code: 100, type: 'OAuthException', message });

  /** The scopes of a live user token, or undefined (unknown, expired). */
  function userScopes(token: string | undefined): string[] | undefined {
    if (token === undefined || expired.has(token)) return undefined;
    const long = longLived.get(token);
    if (long) return long;
    if (!oauth.isValidAccessToken(token)) return undefined;
    return oauth.issued.find((issued) => issued.accessToken === token)?.scopes;
  }
  const tokenError = (response: ServerResponse, token: string | undefined) =>
    graphError(
      response,
      token && expired.has(token)
        ? FACEBOOK_ERRORS.sessionInvalidated
        : FACEBOOK_ERRORS.tokenInvalid,
    );

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const params: Record<string, string> = {
      ...Object.fromEntries(url.searchParams),
      ...(typeof body === 'object' && body !== null
        ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]))
        : {}),
    };
    const [version, ...segments] = url.pathname.split('/').filter(Boolean);
    if (!isVersion(version) || segments.length === 0) {
      return invalid(response, 'Unknown path components');
    }
    if (request.method === 'GET' && segments.join('/') === 'dialog/oauth') {
      return dialog(response, url);
    }
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && ('hangAfterCreate' in scripted || 'dropAfterCreate' in scripted)) {
      // Graph acts on the request; the answer is lost (a timeout, a reset, a killed worker).
      const lost = { writeHead: () => lost, end: () => lost, setHeader: () => lost };
      pagesApi.handle(
        lost as unknown as ServerResponse,
        request.method ?? 'GET',
        segments,
        params,
        undefined,
      );
      if ('dropAfterCreate' in scripted) dropConnection(request);
      return;
    }
    if (scripted && 'error' in scripted) return graphError(response, scripted.error);

    const call = callOf(request.method ?? 'GET', url.pathname, params);
    if (call === 'exchange') return exchange(response, params);
    if (call === 'longLived') return exchangeLongLived(response, params);
    const token = params.access_token;
    if (call === 'other') {
      if (!token) {
        return graphError(response, {
          code: 104,
          message: 'An access token is required to request this resource.',
        });
      }
      if (expired.has(token)) return tokenError(response, token);
      if (options.strictTokens && !userScopes(token) && !pageTokens.has(token)) {
        return tokenError(response, token);
      }
      // A user token cannot publish for a Page; a Page token only for its own Page. Tokens the
      // tests bring along (neither issued here) act for any Page.
      if (userScopes(token)) {
        if (pagesApi.handle(response, request.method ?? 'GET', segments, params, '')) return;
      } else if (
        pagesApi.handle(response, request.method ?? 'GET', segments, params, pageTokens.get(token))
      ) {
        return;
      }
      return invalid(
        response,
        `Unsupported ${request.method} request. Object with ID '${segments[0]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      );
    }
    const scopes = userScopes(token);
    if (!scopes) return tokenError(response, token);
    if (call === 'me') return sendJson(response, 200, user);
    if (call === 'permissions') {
      return sendJson(response, 200, {
        data: scopes.map((permission) => ({
          permission,
          status: declined.includes(permission) ? 'declined' : 'granted',
        })),
      });
    }
    return accounts(response, token as string, scopes, params, url);
  }

  /** GET /{version}/dialog/oauth: consents at once and redirects back with `code` (or `error`). */
  function dialog(response: ServerResponse, url: URL) {
    const q = url.searchParams;
    if ((q.get('response_type') ?? 'code') !== 'code') {
      return invalid(response, 'response_type must be code for the server-side flow');
    }
    const answer = oauth.authorize(consentQueryOf(q));
    if (!('redirect' in answer)) {
      return graphError(response, {
        ...FACEBOOK_ERRORS.badAppId,
        message: `Invalid request: ${answer.error}`,
      });
    }
    const back = new URL(answer.redirect);
    if (back.searchParams.get('error') === 'access_denied') {
      back.searchParams.set('error_reason', 'user_denied');
    }
    // Facebook appends #_=_ to the redirect URI.
    response.writeHead(302, { location: `${back.toString()}#_=_` }).end();
  }

  /** GET /{version}/oauth/access_token?client_id&redirect_uri&client_secret&code */
  function exchange(response: ServerResponse, params: Record<string, string>) {
    const answer = oauth.exchangeCode({
      code: params.code,
      clientId: params.client_id,
      clientSecret: params.client_secret,
      redirectUri: params.redirect_uri,
      codeVerifier: params.code_verifier,
    });
    if (!answer.ok) {
      if (answer.error === 'invalid_client') {
        return graphError(
          response,
          params.client_id === oauth.options.clientId
            ? FACEBOOK_ERRORS.badSecret
            : FACEBOOK_ERRORS.badAppId,
        );
      }
      if (answer.status >= 500) {
        return graphError(response, {
          ...FACEBOOK_ERRORS.unknown,
          message: answer.description,
          status: answer.status,
        });
      }
      if (answer.description.startsWith('redirect_uri')) {
        return graphError(response, FACEBOOK_ERRORS.redirectMismatch);
      }
      if (answer.error === 'invalid_grant' && answer.description.includes('invalid or was used')) {
        return graphError(response, FACEBOOK_ERRORS.codeUsed);
      }
      return graphError(response, {
        code: 100,
        message: answer.description,
        status: answer.status,
      });
    }
    sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      token_type: 'bearer',
      expires_in: answer.tokens.expiresIn,
    });
  }

  /** GET /{version}/oauth/access_token?grant_type=fb_exchange_token&client_id&client_secret&fb_exchange_token */
  function exchangeLongLived(response: ServerResponse, params: Record<string, string>) {
    if (params.client_id !== oauth.options.clientId) {
      return graphError(response, FACEBOOK_ERRORS.badAppId);
    }
    if (params.client_secret !== oauth.options.clientSecret) {
      return graphError(response, FACEBOOK_ERRORS.badSecret);
    }
    const scopes = userScopes(params.fb_exchange_token);
    if (!scopes) return tokenError(response, params.fb_exchange_token);
    const token = newToken();
    longLived.set(token, scopes);
    longLivedTokens.push(token);
    sendJson(response, 200, {
      access_token: token,
      token_type: 'bearer',
      expires_in: FACEBOOK_LONG_LIVED_EXPIRES_IN,
    });
  }

  /** GET /{version}/me/accounts: the granted Pages with Page tokens, paged by cursor. */
  function accounts(
    response: ServerResponse,
    userToken: string,
    scopes: string[],
    params: Record<string, string>,
    url: URL,
  ) {
    if (!scopes.includes('pages_show_list') || declined.includes('pages_show_list')) {
      return graphError(response, {
        code: 200,
        type: 'OAuthException',
        message: '(#200) Requires pages_show_list permission to manage the object',
        status: 403,
      });
    }
    const size = Math.max(1, Number(params.limit) || options.accountsPageSize || 25);
    const start = params.after ? Number(Buffer.from(params.after, 'base64url').toString()) : 0;
    const slice = pages.slice(start, start + size);
    const fields = (params.fields ?? 'name,access_token,category,category_list,tasks').split(',');
    const data = slice.map((page) => {
      let pageToken = [...pageTokens].find(
        ([token, id]) => id === page.id && tokenOwners.get(token) === userToken,
      )?.[0];
      if (!pageToken) {
        pageToken = newToken();
        pageTokens.set(pageToken, page.id);
        tokenOwners.set(pageToken, userToken);
      }
      const full: Record<string, unknown> = {
        access_token: pageToken,
        category: page.category ?? 'Local business',
        category_list: [{ id: '2500', name: page.category ?? 'Local business' }],
        name: page.name,
        id: page.id,
        tasks: page.tasks ?? ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
      };
      return Object.fromEntries(
        Object.entries(full).filter(([key]) => key === 'id' || fields.includes(key)),
      );
    });
    const cursor = (index: number) => Buffer.from(String(index)).toString('base64url');
    const paging: Record<string, unknown> =
      slice.length === 0
        ? {}
        : { cursors: { before: cursor(start), after: cursor(start + slice.length) } };
    if (start + slice.length < pages.length) {
      const next = new URL(url.toString());
      next.searchParams.set('after', cursor(start + slice.length));
      next.searchParams.set('limit', String(size));
      paging.next = next.toString();
    }
    sendJson(response, 200, { data, ...(slice.length === 0 ? {} : { paging }) });
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    script(step) {
      const on = step.on ?? 'any';
      scripts.add(
        step,
        (r) =>
          (on === 'any' || callOf(r.method, r.path, r.query) === on) &&
          (step.path === undefined || r.path.endsWith(step.path)) &&
          Object.entries(step.params ?? {}).every(([key, value]) => paramsOf(r)[key] === value),
        step.times ?? 1,
      );
    },
    oauth,
    user,
    pages,
    declined,
    pageTokens,
    longLivedTokens,
    expireAccessToken: (token) => expired.add(token),
    posts: pagesApi.posts,
    comments: pagesApi.comments,
    addComment: pagesApi.addComment,
    photos: pagesApi.photos,
    videos: pagesApi.videos,
    failNextVideo: pagesApi.failNextVideo,
    engagement: pagesApi.engagement,
    deauthorize() {
      for (const token of longLived.keys()) expired.add(token);
      for (const issued of oauth.issued) expired.add(issued.accessToken);
      for (const token of pageTokens.keys()) expired.add(token);
    },
  };
}
