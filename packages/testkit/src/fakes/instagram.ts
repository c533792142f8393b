// A local Instagram Graph API (content publishing) speaking the formats of docs/platforms.md#instagram: containers,
// status_code polling, media_publish, permalink, publishing limit and Graph error objects.
// It also serves the Instagram API with Instagram Login OAuth flow on the same base URL:
// consent (/oauth/authorize, www.instagram.com), code exchange (/oauth/access_token,
// api.instagram.com), long-lived exchange and refresh (/access_token, /refresh_access_token) and
// identity (/{version}/me) on graph.instagram.com.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
  sendRawJson,
} from './http.ts';
import { createInstagramComments, type InstagramComment } from './instagram-comments.ts';
import { consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import { graphInsightsAnswer, PostNumbers } from './post-numbers.ts';

export interface InstagramError {
  code: number;
  subcode?: number;
  type?: string;
  message: string;
  isTransient?: boolean;
  /** HTTP status of the answer (Graph uses 400 for nearly everything). Default 400. */
  status?: number;
  /** Headers sent along, e.g. `x-business-use-case-usage` with estimated_time_to_regain_access. */
  headers?: Record<string, string>;
}

/**
 * Documented errors (docs/platforms.md#instagram codes/subcodes). Parent codes of subcode errors follow Meta's
 * error table where it was confirmed (-2/2207003, -2/2207020, -1/2207001, 9/2207042,
 * 36000/2207004); the others (9004/2207052, 36001/2207005, 36003/2207009, 100/2207010,
 * 352/2207026, 4/2207051) are as commonly reported, unconfirmed.
 */
export const INSTAGRAM_ERRORS = {
  tokenExpired: {
    code: 190,
    subcode: 463,
    type: 'OAuthException',
    message: 'Error validating access token: Session has expired.',
  },
  tokenInvalid: {
    code: 190,
    type: 'OAuthException',
    message: 'Invalid OAuth access token - Cannot parse access token',
  },
  appRateLimit: {
    code: 4,
    type: 'OAuthException',
    message: 'Application request limit reached',
    isTransient: true,
  },
  userRateLimit: {
    code: 17,
    type: 'OAuthException',
    message: 'User request limit reached',
    isTransient: true,
  },
  appLimit: {
    code: 341,
    type: 'OAuthException',
    message: 'Application limit reached',
    isTransient: true,
  },
  permission: {
    code: 10,
    type: 'OAuthException',
    message: 'Application does not have permission for this action',
  },
  permission200: { code: 200, type: 'OAuthException', message: 'Permissions error' },
  policyBlock: {
    code: 368,
    type: 'OAuthException',
    message: 'The action attempted has been deemed abusive or is otherwise disallowed',
  },
  duplicate: { code: 506, type: 'OAuthException', message: 'Duplicate Post' },
  serverError: {
    code: -1,
    subcode: 2207001,
    type: 'OAuthException',
    message: 'Instagram server error. Try again.',
  },
  downloadTimeout: {
    code: -2,
    subcode: 2207003,
    type: 'OAuthException',
    message: 'It takes too long to download the media.',
  },
  imageTooLarge: {
    code: 36000,
    subcode: 2207004,
    type: 'OAuthException',
    message: 'The image size is too large.',
  },
  badImageFormat: {
    code: 36001,
    subcode: 2207005,
    type: 'OAuthException',
    message: 'The image format is not supported.',
  },
  aspectRatio: {
    code: 36003,
    subcode: 2207009,
    type: 'OAuthException',
    message: 'The submitted image with aspect ratio is not supported.',
  },
  captionTooLong: {
    code: 100,
    subcode: 2207010,
    type: 'OAuthException',
    message: 'The caption is too long.',
  },
  mediaExpired: {
    code: -2,
    subcode: 2207020,
    type: 'OAuthException',
    message: 'The media you are trying to access has expired. Please try to upload again.',
  },
  badVideoFormat: {
    code: 352,
    subcode: 2207026,
    type: 'OAuthException',
    message: 'The video format is not supported.',
  },
  dailyLimit: {
    code: 9,
    subcode: 2207042,
    type: 'OAuthException',
    message:
      'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
  },
  spamRestricted: {
    code: 4,
    subcode: 2207051,
    type: 'OAuthException',
    message: 'We restrict certain activity to protect our community.',
  },
  mediaFetchFailed: {
    code: 9004,
    subcode: 2207052,
    type: 'OAuthException',
    message: 'The media could not be fetched from this uri.',
  },
} as const satisfies Record<string, InstagramError>;

/**
 * Which call a script entry applies to. OAuth: `exchange` (POST /oauth/access_token, answered in
 * api.instagram.com's `{ error_type, code, error_message }` shape), `longLived`
 * (/access_token), `refresh` (/refresh_access_token), `me` (/{version}/me).
 */
export type InstagramCall =
  | 'create'
  /** POST /{ig-media-id}/comments */
  | 'comment'
  /** GET /{ig-media-id}/insights */
  | 'insights'
  | 'status'
  | 'publish'
  | 'permalink'
  | 'exchange'
  | 'longLived'
  | 'refresh'
  | 'me'
  | 'any';

export type InstagramScript =
  /** The next `times` matching calls answer this Graph error. */
  | { error: InstagramError; on?: InstagramCall; times?: number }
  /** The next `times` matching calls get their connection dropped without an answer. */
  | { drop: true; on?: InstagramCall; times?: number }
  /** media_publish takes effect, then the connection drops before the answer (crash window). */
  | { dropAfterPublish: true; times?: number }
  /** The next `times` containers created answer IN_PROGRESS for `processingPolls` status polls. */
  | { processingPolls: number; times?: number }
  /** The next `times` containers created end in this status (after their processing polls). */
  | { containerStatus: 'ERROR' | 'EXPIRED'; status?: string; times?: number };

export interface InstagramContainer {
  id: string;
  igUserId: string;
  params: Record<string, string>;
  kind: 'IMAGE' | 'REELS' | 'VIDEO' | 'CAROUSEL';
  isCarouselItem: boolean;
  pollsLeft: number;
  finalStatus: 'FINISHED' | 'ERROR' | 'EXPIRED';
  errorStatus: string | null;
  published: boolean;
  mediaId: string | null;
}

export interface InstagramMedia {
  id: string;
  igUserId: string;
  containerId: string;
  permalink: string;
  caption: string;
  timestamp: string;
}

export interface FakeInstagram extends FakeServer {
  script(step: InstagramScript): void;
  containers: InstagramContainer[];
  media: InstagramMedia[];
  /** Comments made on published media, in order. */
  comments: InstagramComment[];
  /** Someone else comments on a media, or answers a top-level comment (instagram-comments.ts). */
  addComment(objectId: string, text: string): InstagramComment;
  /**
   * Further calls with this access token answer error 190 (publishing, identity, long-lived
   * exchange and refresh alike): an expired or revoked token.
   */
  expireAccessToken(token: string): void;
  /** The consent and code exchange: script denials and refusals here. */
  oauth: FakeOAuthProvider;
  /** Who consents: the professional account /me answers. */
  account: InstagramAccount;
  /** Long-lived tokens issued (exchange and refresh), in order. */
  longLivedTokens: string[];
  /**
   * What GET /{ig-media-id}/insights answers per media (Instagram's names: views, reach, likes,
   * comments, shares, saved): `set` (null leaves a metric out, and makes the media exist),
   * `remove` (the media is gone: error 100/33); published media get derived numbers.
   */
  insights: PostNumbers<InstagramInsight>;
}

export const INSTAGRAM_INSIGHTS = [
  'views',
  'reach',
  'likes',
  'comments',
  'shares',
  'saved',
] as const;
export type InstagramInsight = (typeof INSTAGRAM_INSIGHTS)[number];

/** The professional account: `user_id` is the IG user id publishing uses, `id` app-scoped. */
export interface InstagramAccount {
  user_id: string;
  username: string;
  id: string;
}

export interface FakeInstagramOptions {
  /** IN_PROGRESS polls of video containers (REELS, carousel VIDEO items). Default 1; images 0. */
  videoProcessingPolls?: number;
  /** The app's id and secret (default instagram-client-id / instagram-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  account?: Partial<InstagramAccount>;
  /**
   * The code exchange's answer: `data` (default) is the current docs' `{ data: [{ access_token,
   * user_id, permissions }] }`; `flat` is the older `{ access_token, user_id, permissions }` with
   * user_id as a bare int64 number (as still seen in the wild).
   */
  tokenShape?: 'data' | 'flat';
}

/** Seconds a long-lived token lives, as Instagram answers it (about 60 days). */
export const INSTAGRAM_LONG_LIVED_EXPIRES_IN = 5_183_944;

const isVersion = (segment: string | undefined) =>
  segment !== undefined && /^v\d+\.\d+$/.test(segment);

const callOf = (method: string, path: string, fields: string | null): InstagramCall => {
  const all = path.split('/').filter(Boolean);
  const segments = isVersion(all[0]) ? all.slice(1) : all;
  if (path === '/oauth/access_token') return 'exchange';
  if (segments.length === 1 && segments[0] === 'access_token') return 'longLived';
  if (segments.length === 1 && segments[0] === 'refresh_access_token') return 'refresh';
  if (method === 'GET' && segments.length === 1 && segments[0] === 'me') return 'me';
  if (method === 'POST' && segments[1] === 'media') return 'create';
  if (method === 'POST' && segments[1] === 'media_publish') return 'publish';
  if (method === 'POST' && segments[1] === 'comments') return 'comment';
  if (method === 'GET' && segments[1] === 'insights') return 'insights';
  if (fields?.includes('permalink')) return 'permalink';
  return 'status';
};

export async function startFakeInstagram(
  options: FakeInstagramOptions = {},
): Promise<FakeInstagram> {
  const requests: RecordedRequest[] = [];
  const containers: InstagramContainer[] = [];
  const media: InstagramMedia[] = [];
  const comments: InstagramComment[] = [];
  const scripts = new ScriptQueue<InstagramScript>();
  const expired = new Set<string>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'instagram-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'instagram-client-secret',
    // Meta's login service binds a code to the challenge sent with the consent.
    pkce: 'optional',
    accessTokenTtlSeconds: 3_600,
    issueRefreshTokens: false,
  });
  const account: InstagramAccount = {
    user_id: '17841400000000001',
    username: 'fake_business',
    id: '9000000000000001',
    ...options.account,
  };
  /** Long-lived token -> the permissions it carries. */
  const longLived = new Map<string, string[]>();
  const longLivedTokens: string[] = [];
  let counter = 0;
  const newId = () => String(17_840_000_000_000_000n + BigInt(++counter) * 7919n);
  const trace = () => `Afake${String(counter).padStart(6, '0')}`;

  const insights = new PostNumbers(INSTAGRAM_INSIGHTS);
  const graphError = (response: ServerResponse, error: InstagramError) =>
    sendJson(
      response,
      error.status ?? 400,
      {
        error: {
          message: error.message,
          type: error.type ?? 'OAuthException',
          code: error.code,
          ...(error.subcode === undefined ? {} : { error_subcode: error.subcode }),
          is_transient: error.isTransient ?? false,
          fbtrace_id: trace(),
        },
      },
      error.headers ?? {},
    );
  const commentsApi = createInstagramComments(
    comments,
    () => ({ id: account.user_id, username: account.username }),
    (response, error) => graphError(response, error),
  );
  const invalid = (response: ServerResponse, message: string) =>
    graphError(response, { code: 100, type: 'OAuthException', message: `(#100) ${message}` });

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    // Graph reads parameters from the query string and from a form/JSON body alike.
    const params: Record<string, string> = {
      ...Object.fromEntries(url.searchParams),
      ...(typeof body === 'object' && body !== null
        ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]))
        : {}),
    };
    if (url.pathname === '/oauth/authorize' && request.method === 'GET') {
      return authorize(response, url);
    }
    const call = callOf(request.method ?? 'GET', url.pathname, params.fields ?? null);
    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) {
      if (call === 'exchange') {
        const status = scripted.error.status ?? 400;
        return codeError(response, scripted.error.message, status, scripted.error.type);
      }
      return graphError(response, scripted.error);
    }
    if (call === 'exchange' && request.method === 'POST') return exchange(response, params);
    if (call === 'longLived' && request.method === 'GET')
      return exchangeLongLived(response, params);
    if (call === 'refresh' && request.method === 'GET') return refresh(response, params);
    if (call === 'me') return me(response, params);

    const [version, ...segments] = url.pathname.split('/').filter(Boolean);
    if (!version || !isVersion(version) || segments.length === 0) {
      return invalid(response, 'Unknown path components');
    }

    const token = params.access_token;
    if (!token)
      return graphError(response, {
        code: 104,
        message: 'An access token is required to request this resource.',
      });
    if (expired.has(token)) return graphError(response, INSTAGRAM_ERRORS.tokenExpired);

    const [id, edge] = segments as [string, string | undefined];
    if (commentsApi.handle(response, request.method ?? 'GET', id, edge, params)) return;
    if (request.method === 'GET' && edge === 'insights')
      return mediaInsights(response, id, token, params);
    if (request.method === 'POST' && edge === 'media')
      return create(response, id, params, recorded);
    if (request.method === 'GET' && edge === 'media') return listMedia(response, id, params);
    if (request.method === 'GET' && edge === 'comments') {
      // Newest first, as Graph lists a media's comments.
      const mine = comments.filter((comment) => comment.mediaId === id).reverse();
      return sendJson(response, 200, {
        data: mine.map((comment) => ({ id: comment.id, text: comment.message })),
      });
    }
    if (request.method === 'POST' && edge === 'media_publish')
      return publish(request, response, id, params, recorded);
    if (request.method === 'POST' && edge === 'comments') {
      if (!media.some((item) => item.id === id)) {
        return graphError(response, {
          code: 100,
          message: `Unsupported post request. Object with ID '${id}' does not exist`,
        });
      }
      if (!params.message) return invalid(response, 'The parameter message is required');
      const made = {
        id: String(18_100_000_000_000_000 + comments.length + 1),
        mediaId: id,
        message: params.message,
      };
      comments.push(made);
      return sendJson(response, 200, { id: made.id });
    }
    if (request.method === 'GET' && edge === 'content_publishing_limit') {
      const used = media.length;
      return sendJson(response, 200, {
        data: [{ quota_usage: used, config: { quota_total: 50, quota_duration: 86400 } }],
      });
    }
    if (request.method === 'GET' && edge === undefined) return read(response, id, params, call);
    return invalid(response, 'Unsupported request');
  }

  /**
   * GET /{ig-media-id}/insights?metric=: the media's numbers. A token this fake issued needs
   * instagram_business_manage_insights (error 10 otherwise); unknown or removed media are 100/33.
   */
  function mediaInsights(
    response: ServerResponse,
    id: string,
    token: string,
    params: Record<string, string>,
  ) {
    const permissions =
      longLived.get(token) ?? oauth.issued.find((issued) => issued.accessToken === token)?.scopes;
    if (permissions && !permissions.includes('instagram_business_manage_insights')) {
      return graphError(response, {
        code: 10,
        message: '(#10) Application does not have permission for this action',
      });
    }
    const exists = media.some((item) => item.id === id) || insights.isSet(id);
    if (!exists || insights.isGone(id)) {
      return graphError(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      });
    }
    const answer = graphInsightsAnswer(insights, id, params.metric);
    if (answer.status === 200) return sendJson(response, 200, answer.body);
    return graphError(response, { code: answer.code, message: answer.message });
  }

  /** GET /oauth/authorize: consents at once and redirects back with `code` (or `error`). */
  function authorize(response: ServerResponse, url: URL) {
    const q = url.searchParams;
    const scope = q.get('scope') ?? '';
    const scopes = scope.split(/[\s,]+/).filter(Boolean);
    if (q.get('response_type') !== 'code' || !scopes.includes('instagram_business_basic')) {
      return codeError(
        response,
        q.get('response_type') !== 'code'
          ? 'Invalid response_type: code is the only supported value'
          : 'Invalid scope: instagram_business_basic is required',
        400,
      );
    }
    const answer = oauth.authorize(consentQueryOf(q));
    if (!('redirect' in answer)) {
      return codeError(response, `Invalid request: ${answer.error}`, answer.status);
    }
    const back = new URL(answer.redirect);
    if (back.searchParams.get('error') === 'access_denied') {
      back.searchParams.set('error_reason', 'user_denied');
    }
    // Instagram appends #_ to the redirect URI.
    response.writeHead(302, { location: `${back.toString()}#_` }).end();
  }

  /** api.instagram.com's error shape (authorization codes). */
  function codeError(response: ServerResponse, message: string, status = 400, type?: string) {
    sendJson(response, status, {
      error_type: type ?? 'OAuthException',
      code: status,
      error_message: message,
    });
  }

  /** POST /oauth/access_token (form): the short-lived token, user id and permissions. */
  function exchange(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'authorization_code') {
      return codeError(response, 'Invalid grant_type: authorization_code is required');
    }
    const answer = oauth.exchangeCode({
      code: params.code,
      clientId: params.client_id,
      clientSecret: params.client_secret,
      redirectUri: params.redirect_uri,
      codeVerifier: params.code_verifier,
    });
    if (!answer.ok) {
      const message =
        answer.error === 'invalid_client'
          ? 'Invalid platform app'
          : answer.description.startsWith('redirect_uri')
            ? 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request'
            : answer.description.startsWith('code_verifier')
              ? 'Invalid code_verifier: it does not match the code_challenge of the authorization'
              : answer.error === 'invalid_grant'
                ? 'Matching code was not found or was already used'
                : answer.description;
      return codeError(response, message, answer.status === 401 ? 400 : answer.status);
    }
    const permissions = answer.tokens.scopes.join(',');
    const token = answer.tokens.accessToken;
    if (options.tokenShape === 'flat') {
      // user_id as a bare int64 number, as the older reference shows it.
      return sendRawJson(
        response,
        200,
        `{"access_token":${JSON.stringify(token)},"user_id":${account.user_id},"permissions":${JSON.stringify(permissions)}}`,
      );
    }
    sendJson(response, 200, {
      data: [{ access_token: token, user_id: account.user_id, permissions }],
    });
  }

  const tokenError = (response: ServerResponse, token: string | undefined) =>
    graphError(
      response,
      token && expired.has(token) ? INSTAGRAM_ERRORS.tokenExpired : INSTAGRAM_ERRORS.tokenInvalid,
    );

  function issueLongLived(response: ServerResponse, permissions: string[]) {
    const token = `IGAA${randomBytes(24).toString('base64url')}`;
    longLived.set(token, permissions);
    longLivedTokens.push(token);
    sendJson(response, 200, {
      access_token: token,
      token_type: 'bearer',
      expires_in: INSTAGRAM_LONG_LIVED_EXPIRES_IN,
    });
  }

  /** GET /access_token?grant_type=ig_exchange_token&client_secret&access_token (short-lived). */
  function exchangeLongLived(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'ig_exchange_token') {
      return invalid(response, 'grant_type must be ig_exchange_token');
    }
    if (params.client_secret !== oauth.options.clientSecret) {
      return graphError(response, { code: 1, message: 'Error validating client secret.' });
    }
    const token = params.access_token;
    if (!token || expired.has(token) || !oauth.isValidAccessToken(token)) {
      return tokenError(response, token);
    }
    const issued = oauth.issued.find((t) => t.accessToken === token);
    issueLongLived(response, issued?.scopes ?? []);
  }

  /** GET /refresh_access_token?grant_type=ig_refresh_token&access_token (long-lived). */
  function refresh(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'ig_refresh_token') {
      return invalid(response, 'grant_type must be ig_refresh_token');
    }
    const token = params.access_token;
    const permissions = token === undefined ? undefined : longLived.get(token);
    if (!token || expired.has(token) || !permissions) return tokenError(response, token);
    issueLongLived(response, permissions);
  }

  /** GET /{version}/me?fields=user_id,username: the account behind an OAuth-issued token. */
  function me(response: ServerResponse, params: Record<string, string>) {
    const token = params.access_token;
    const known = token !== undefined && (longLived.has(token) || oauth.isValidAccessToken(token));
    if (!token || expired.has(token) || !known) return tokenError(response, token);
    const fields = (params.fields ?? 'id').split(',');
    sendJson(response, 200, {
      ...(fields.includes('user_id') ? { user_id: account.user_id } : {}),
      ...(fields.includes('username') ? { username: account.username } : {}),
      id: account.id,
    });
  }

  function create(
    response: ServerResponse,
    igUserId: string,
    params: Record<string, string>,
    recorded: RecordedRequest,
  ) {
    const isCarouselItem = params.is_carousel_item === 'true';
    let kind: InstagramContainer['kind'];
    if (params.media_type === 'CAROUSEL') {
      const children = (params.children ?? '').split(',').filter(Boolean);
      if (children.length < 2 || children.length > 10)
        return invalid(response, 'children must hold 2 to 10 ids');
      for (const childId of children) {
        const child = containers.find((c) => c.id === childId);
        if (!child?.isCarouselItem) return invalid(response, `${childId} is not a carousel item`);
        if (child.pollsLeft > 0 || child.finalStatus !== 'FINISHED') {
          return graphError(response, {
            code: 9007,
            subcode: 2207027,
            message: 'Media ID is not available',
          });
        }
      }
      kind = 'CAROUSEL';
    } else if (params.media_type === 'REELS' || params.media_type === 'VIDEO') {
      if (!params.video_url) return invalid(response, 'The parameter video_url is required');
      kind = params.media_type;
    } else if (params.image_url) {
      kind = 'IMAGE';
    } else {
      return invalid(response, 'The parameter image_url is required');
    }
    if ((params.caption ?? '').length > 2200)
      return graphError(response, INSTAGRAM_ERRORS.captionTooLong);
    const polls = scripts.take(recorded, (a) => 'processingPolls' in a);
    const ending = scripts.take(recorded, (a) => 'containerStatus' in a);
    const isVideo = kind === 'REELS' || kind === 'VIDEO';
    const container: InstagramContainer = {
      id: newId(),
      igUserId,
      params,
      kind,
      isCarouselItem,
      pollsLeft:
        polls && 'processingPolls' in polls
          ? polls.processingPolls
          : isVideo
            ? (options.videoProcessingPolls ?? 1)
            : 0,
      finalStatus: ending && 'containerStatus' in ending ? ending.containerStatus : 'FINISHED',
      errorStatus: ending && 'containerStatus' in ending ? (ending.status ?? null) : null,
      published: false,
      mediaId: null,
    };
    containers.push(container);
    sendJson(response, 200, { id: container.id });
  }

  function publish(
    request: IncomingMessage,
    response: ServerResponse,
    igUserId: string,
    params: Record<string, string>,
    recorded: RecordedRequest,
  ) {
    const container = containers.find((c) => c.id === params.creation_id);
    if (!container || container.igUserId !== igUserId || container.isCarouselItem) {
      return graphError(response, {
        code: 24,
        subcode: 2207008,
        message: 'Media builder not found',
      });
    }
    if (container.published) return invalid(response, 'The container was already published');
    if (container.pollsLeft > 0 || container.finalStatus !== 'FINISHED') {
      return graphError(response, {
        code: 9007,
        subcode: 2207027,
        message: 'Media ID is not available',
      });
    }
    container.published = true;
    const id = newId();
    const shortcode = `C${Buffer.from(id).toString('base64url').slice(0, 10)}`;
    const path = container.kind === 'REELS' ? 'reel' : 'p';
    container.mediaId = id;
    media.push({
      id,
      igUserId,
      containerId: container.id,
      permalink: `https://www.instagram.com/${path}/${shortcode}/`,
      caption: container.params.caption ?? '',
      // Graph's own format: 2026-11-25T22:03:42+0000.
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
    });
    if (scripts.take(recorded, (a) => 'dropAfterPublish' in a)) return dropConnection(request);
    sendJson(response, 200, { id });
  }

  /** GET /{ig-user-id}/media?fields=id,caption,timestamp&limit=N: the user's media, newest first. */
  function listMedia(response: ServerResponse, igUserId: string, params: Record<string, string>) {
    const limit = Math.min(Math.max(Number(params.limit ?? 25) || 25, 1), 100);
    const fields = (params.fields ?? 'id').split(',');
    const mine = media
      .filter((item) => item.igUserId === igUserId)
      .reverse()
      .slice(0, limit);
    sendJson(response, 200, {
      data: mine.map((item) => ({
        id: item.id,
        ...(fields.includes('caption') ? { caption: item.caption } : {}),
        ...(fields.includes('timestamp') ? { timestamp: item.timestamp } : {}),
        ...(fields.includes('permalink') ? { permalink: item.permalink } : {}),
      })),
    });
  }

  function read(
    response: ServerResponse,
    id: string,
    params: Record<string, string>,
    call: InstagramCall,
  ) {
    const fields = (params.fields ?? 'id').split(',');
    const item = media.find((m) => m.id === id);
    if (item) {
      return sendJson(response, 200, {
        id,
        ...(fields.includes('permalink') ? { permalink: item.permalink } : {}),
      });
    }
    const container = containers.find((c) => c.id === id);
    if (!container || call === 'permalink') {
      return graphError(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist`,
      });
    }
    let statusCode: string;
    let status: string;
    if (container.published) {
      statusCode = 'PUBLISHED';
      status = 'Published: media is live';
    } else if (container.pollsLeft > 0) {
      container.pollsLeft -= 1;
      statusCode = 'IN_PROGRESS';
      status = 'In Progress: Media is still being processed.';
    } else {
      statusCode = container.finalStatus;
      status =
        container.errorStatus ??
        (statusCode === 'FINISHED'
          ? 'Finished: Media has been uploaded and it is ready to be published.'
          : statusCode === 'EXPIRED'
            ? 'Expired: the container was not published within 24 hours.'
            : 'Error: Media upload has failed with error code 2207026');
    }
    sendJson(response, 200, {
      ...(fields.includes('status_code') ? { status_code: statusCode } : {}),
      ...(fields.includes('status') ? { status } : {}),
      id,
    });
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    containers,
    media,
    comments,
    addComment: commentsApi.addComment,
    close: server.close,
    script(step) {
      let matches: (r: RecordedRequest) => boolean = () => true;
      if ('error' in step || 'drop' in step) {
        const on = step.on ?? 'any';
        matches = (r) => on === 'any' || callOf(r.method, r.path, r.query.fields ?? null) === on;
      }
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (token) => expired.add(token),
    oauth,
    account,
    longLivedTokens,
    insights,
  };
}
