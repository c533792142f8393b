// A local Threads API (Meta) speaking the formats of docs/platforms.md#threads: containers
// (TEXT, IMAGE, VIDEO, CAROUSEL, replies with reply_to_id), status polling, threads_publish, the
// profile's posts and replies, permalinks, the publishing limit and Graph error objects. It also
// serves the Threads OAuth flow on the same base URL: consent (/oauth/authorize, threads.net),
// code exchange (POST /oauth/access_token), long-lived exchange and refresh (/access_token,
// /refresh_access_token) and identity (/v1.0/me) on graph.threads.net.
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
} from './http.ts';
import { consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import { graphInsightsAnswer, PostNumbers } from './post-numbers.ts';
import { createThreadsReplies } from './threads-replies.ts';

export interface ThreadsError {
  code: number;
  subcode?: number;
  type?: string;
  message: string;
  isTransient?: boolean;
  /** HTTP status of the answer (Graph uses 400 for nearly everything). Default 400. */
  status?: number;
  /** Headers sent along, e.g. `x-app-usage` with estimated_time_to_regain_access. */
  headers?: Record<string, string>;
}

/**
 * Errors as Meta's Graph dialect writes them. The publishing limit's subcode is Instagram's
 * (Threads shares its publishing stack; unconfirmed in the Threads reference), as is
 * mediaNotFound (4279009, seen when a container is published a moment after its creation).
 */
export const THREADS_ERRORS = {
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
  permission: {
    code: 10,
    type: 'OAuthException',
    message: 'Application does not have permission for this action',
  },
  publishingLimit: {
    code: 9,
    subcode: 2207042,
    type: 'OAuthException',
    message: 'You reached the maximum number of posts allowed to be published in 24 hours.',
  },
  mediaNotFound: {
    code: 24,
    subcode: 4279009,
    type: 'OAuthException',
    message: 'Media Not Found: The media with the given id cannot be found.',
  },
  serverError: {
    code: 2,
    type: 'OAuthException',
    message: 'An unexpected error has occurred. Please retry your request later.',
    isTransient: true,
    status: 500,
  },
  textTooLong: {
    code: 100,
    type: 'THApiException',
    message: 'Param text must be at most 500 characters long.',
  },
} as const satisfies Record<string, ThreadsError>;

/**
 * Which call a script entry applies to. OAuth: `exchange` (POST /oauth/access_token),
 * `longLived` (/access_token), `refresh` (/refresh_access_token), `me` (/v1.0/me).
 */
export type ThreadsCall =
  | 'create'
  | 'status'
  | 'publish'
  | 'permalink'
  | 'recent'
  | 'limit'
  /** GET /{threads-media-id}/insights */
  | 'insights'
  /** DELETE /{threads-media-id} */
  | 'delete'
  | 'exchange'
  | 'longLived'
  | 'refresh'
  | 'me'
  | 'any';

export type ThreadsScript =
  /** The next `times` matching calls (with this `text`, when given) answer this Graph error. */
  | { error: ThreadsError; on?: ThreadsCall; text?: string; times?: number }
  /** The next `times` matching calls get their connection dropped without an answer. */
  | { drop: true; on?: ThreadsCall; times?: number }
  /** threads_publish takes effect, then the connection drops before the answer (crash window). */
  | { dropAfterPublish: true; times?: number }
  /** The next `times` containers created answer IN_PROGRESS for `processingPolls` status polls. */
  | { processingPolls: number; times?: number }
  /** The next `times` containers created end in this status, with this error_message. */
  | { containerStatus: 'ERROR' | 'EXPIRED'; errorMessage?: string; times?: number };

export interface ThreadsContainer {
  id: string;
  userId: string;
  mediaType: 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';
  params: Record<string, string>;
  isCarouselItem: boolean;
  pollsLeft: number;
  finalStatus: 'FINISHED' | 'ERROR' | 'EXPIRED';
  errorMessage: string | null;
  published: boolean;
}

/** A published post (or reply: `replyTo` set). */
export interface ThreadsPost {
  id: string;
  containerId: string;
  userId: string;
  mediaType: ThreadsContainer['mediaType'];
  text: string;
  replyTo: string | null;
  /** The media URLs it carries (a carousel's, in order). */
  mediaUrls: string[];
  timestamp: string;
  permalink: string;
}

/** The profile /v1.0/me answers. */
export interface ThreadsProfile {
  id: string;
  username: string;
  name: string;
}

export interface FakeThreads extends FakeServer {
  script(step: ThreadsScript): void;
  containers: ThreadsContainer[];
  /** Published posts and replies, in order (other profiles' replies among them). */
  posts: ThreadsPost[];
  /** Another profile replies to a post or reply (threads-replies.ts); `hidden`: manage_reply's. */
  addReply(replyTo: string, text: string): ThreadsPost;
  hiddenReplies: Set<string>;
  /** Further calls with this access token answer error 190: an expired or revoked token. */
  expireAccessToken(token: string): void;
  /** The consent and code exchange: script denials and refusals here. */
  oauth: FakeOAuthProvider;
  profile: ThreadsProfile;
  /** Long-lived tokens issued (exchange and refresh), in order. */
  longLivedTokens: string[];
  /**
   * What GET /{threads-media-id}/insights answers per post (Threads' names: views, likes,
   * replies, reposts, quotes, shares): `set` (null leaves a metric out, and makes the post
   * exist), `remove` (the post is gone: error 100/33); published posts get derived numbers.
   */
  insights: PostNumbers<ThreadsInsight>;
}

export const THREADS_INSIGHTS = [
  'views',
  'likes',
  'replies',
  'reposts',
  'quotes',
  'shares',
] as const;
export type ThreadsInsight = (typeof THREADS_INSIGHTS)[number];

export interface FakeThreadsOptions {
  /** IN_PROGRESS polls of video containers. Default 1; text and images 0. */
  videoProcessingPolls?: number;
  /** The app's id and secret (default threads-client-id / threads-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  profile?: Partial<ThreadsProfile>;
  /** Top-level posts a profile may publish before threads_publish answers the limit error. */
  postLimit?: number;
}

/** Seconds a long-lived token lives, as Threads answers it (60 days). */
export const THREADS_LONG_LIVED_EXPIRES_IN = 5_184_000;
const VERSION = 'v1.0';

const callOf = (method: string, path: string, fields: string | null): ThreadsCall => {
  const all = path.split('/').filter(Boolean);
  const segments = all[0] === VERSION ? all.slice(1) : all;
  if (path === '/oauth/access_token') return 'exchange';
  if (all.length === 1 && all[0] === 'access_token') return 'longLived';
  if (all.length === 1 && all[0] === 'refresh_access_token') return 'refresh';
  if (method === 'GET' && segments.length === 1 && segments[0] === 'me') return 'me';
  if (method === 'DELETE') return 'delete';
  if (method === 'POST' && segments[1] === 'threads') return 'create';
  if (method === 'POST' && segments[1] === 'threads_publish') return 'publish';
  if (segments[1] === 'threads' || segments[1] === 'replies') return 'recent';
  if (segments[1] === 'threads_publishing_limit') return 'limit';
  if (segments[1] === 'insights') return 'insights';
  if (fields?.includes('permalink')) return 'permalink';
  return 'status';
};

/** The `text` parameter of a recorded call (form or query). */
const textOf = (r: RecordedRequest): string | undefined => {
  const body = r.body as Record<string, unknown> | undefined;
  return typeof body?.text === 'string' ? body.text : r.query.text;
};

export async function startFakeThreads(options: FakeThreadsOptions = {}): Promise<FakeThreads> {
  const requests: RecordedRequest[] = [];
  const containers: ThreadsContainer[] = [];
  const posts: ThreadsPost[] = [];
  const scripts = new ScriptQueue<ThreadsScript>();
  const expired = new Set<string>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'threads-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'threads-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 3_600,
    issueRefreshTokens: false,
  });
  const profile: ThreadsProfile = {
    id: '25010000000000001',
    username: 'fake_threads',
    name: 'Fake Threads',
    ...options.profile,
  };
  const longLived = new Set<string>();
  const longLivedTokens: string[] = [];
  let counter = 0;
  const newId = () => String(18_000_000_000_000_000n + BigInt(++counter) * 7919n);
  const trace = () => `Afake${String(counter).padStart(6, '0')}`;

  const insights = new PostNumbers(THREADS_INSIGHTS);
  const graphError = (response: ServerResponse, error: ThreadsError) =>
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
  const invalid = (response: ServerResponse, message: string) =>
    graphError(response, { code: 100, type: 'THApiException', message });
  const replies = createThreadsReplies(
    posts,
    () => profile,
    newId,
    (fields): ThreadsPost => ({ ...fields, containerId: '', mediaType: 'TEXT', mediaUrls: [] }),
    (response, id) =>
      graphError(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      }),
  );
  const tokenError = (response: ServerResponse, token: string | undefined) =>
    graphError(
      response,
      token && expired.has(token) ? THREADS_ERRORS.tokenExpired : THREADS_ERRORS.tokenInvalid,
    );

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    // Graph reads parameters from the query string and from a form body alike.
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
    if (scripted && 'error' in scripted) return graphError(response, scripted.error);
    if (call === 'exchange' && request.method === 'POST') return exchange(response, params);
    if (call === 'longLived' && request.method === 'GET')
      return exchangeLongLived(response, params);
    if (call === 'refresh' && request.method === 'GET') return refresh(response, params);

    const [version, ...segments] = url.pathname.split('/').filter(Boolean);
    if (version !== VERSION || segments.length === 0) {
      return invalid(response, 'Unknown path components');
    }
    const token = params.access_token;
    if (!token) return graphError(response, { code: 190, message: 'An access token is required' });
    if (expired.has(token)) return tokenError(response, token);
    if (call === 'me') return me(response, token, params);

    const [id, edge] = segments as [string, string | undefined];
    if (replies.handle(response, request.method ?? 'GET', id, edge, params)) return;
    if (request.method === 'POST' && edge === 'threads') {
      return create(response, id, params, recorded);
    }
    if (request.method === 'POST' && edge === 'threads_publish') {
      return publish(request, response, id, params, recorded);
    }
    if (request.method === 'GET' && (edge === 'threads' || edge === 'replies')) {
      return recent(response, id, edge, params);
    }
    if (request.method === 'GET' && edge === 'threads_publishing_limit') {
      const since = Date.now() - 86_400_000;
      const used = posts.filter(
        (post) => post.userId === id && post.replyTo === null && Date.parse(post.timestamp) > since,
      ).length;
      return sendJson(response, 200, {
        data: [{ quota_usage: used, config: { quota_total: 250, quota_duration: 86400 } }],
      });
    }
    if (request.method === 'GET' && edge === 'insights') return postInsights(response, id, params);
    if (request.method === 'GET' && edge === undefined) return read(response, id, params);
    if (request.method === 'DELETE' && edge === undefined) return remove(response, id);
    return invalid(response, 'Unsupported request');
  }

  /** GET /oauth/authorize: consents at once and redirects back with `code` (or `error`). */
  function authorize(response: ServerResponse, url: URL) {
    const q = url.searchParams;
    const scopes = (q.get('scope') ?? '').split(/[\s,]+/).filter(Boolean);
    if (q.get('response_type') !== 'code' || !scopes.includes('threads_basic')) {
      return invalid(
        response,
        q.get('response_type') !== 'code'
          ? 'Invalid response_type: code is the only supported value'
          : 'Invalid scope: threads_basic is required',
      );
    }
    const answer = oauth.authorize(consentQueryOf(q));
    if (!('redirect' in answer)) return invalid(response, `Invalid request: ${answer.error}`);
    const back = new URL(answer.redirect);
    if (back.searchParams.get('error') === 'access_denied') {
      back.searchParams.set('error_reason', 'user_denied');
    }
    // Meta appends #_ to the redirect URI.
    response.writeHead(302, { location: `${back.toString()}#_` }).end();
  }

  /** POST /oauth/access_token (form): the short-lived token and the user id. */
  function exchange(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'authorization_code') {
      return invalid(response, 'Invalid grant_type: authorization_code is required');
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
          ? 'Error validating client secret.'
          : answer.description.startsWith('redirect_uri')
            ? 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request'
            : answer.description.startsWith('code_verifier')
              ? 'Invalid code_verifier: it does not match the code_challenge of the authorization'
              : answer.error === 'invalid_grant'
                ? 'Matching code was not found or was already used'
                : answer.description;
      const status = answer.status === 401 ? 400 : answer.status;
      return graphError(response, {
        code: answer.error === 'invalid_client' ? 1 : 100,
        message,
        status,
      });
    }
    sendJson(response, 200, { access_token: answer.tokens.accessToken, user_id: profile.id });
  }

  function issueLongLived(response: ServerResponse) {
    const token = `THAA${randomBytes(24).toString('base64url')}`;
    longLived.add(token);
    longLivedTokens.push(token);
    sendJson(response, 200, {
      access_token: token,
      token_type: 'bearer',
      expires_in: THREADS_LONG_LIVED_EXPIRES_IN,
    });
  }

  /** GET /access_token?grant_type=th_exchange_token&client_secret&access_token (short-lived). */
  function exchangeLongLived(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'th_exchange_token') {
      return invalid(response, 'grant_type must be th_exchange_token');
    }
    if (params.client_secret !== oauth.options.clientSecret) {
      return graphError(response, { code: 1, message: 'Error validating client secret.' });
    }
    const token = params.access_token;
    if (!token || expired.has(token) || !oauth.isValidAccessToken(token)) {
      return tokenError(response, token);
    }
    issueLongLived(response);
  }

  /** GET /refresh_access_token?grant_type=th_refresh_token&access_token (long-lived). */
  function refresh(response: ServerResponse, params: Record<string, string>) {
    if (params.grant_type !== 'th_refresh_token') {
      return invalid(response, 'grant_type must be th_refresh_token');
    }
    const token = params.access_token;
    if (!token || expired.has(token) || !longLived.has(token)) return tokenError(response, token);
    issueLongLived(response);
  }

  /** GET /v1.0/me?fields=id,username,name: the profile behind an OAuth-issued token. */
  function me(response: ServerResponse, token: string, params: Record<string, string>) {
    if (!longLived.has(token) && !oauth.isValidAccessToken(token)) {
      return tokenError(response, token);
    }
    const fields = (params.fields ?? 'id').split(',');
    sendJson(response, 200, {
      id: profile.id,
      ...(fields.includes('username') ? { username: profile.username } : {}),
      ...(fields.includes('name') ? { name: profile.name } : {}),
    });
  }

  function create(
    response: ServerResponse,
    userId: string,
    params: Record<string, string>,
    recorded: RecordedRequest,
  ) {
    const mediaType = params.media_type;
    const isCarouselItem = params.is_carousel_item === 'true';
    if (mediaType === 'CAROUSEL') {
      const children = (params.children ?? '').split(',').filter(Boolean);
      if (children.length < 2 || children.length > 20) {
        return invalid(response, 'Param children must hold 2 to 20 ids');
      }
      for (const childId of children) {
        const child = containers.find((c) => c.id === childId);
        if (!child?.isCarouselItem) return invalid(response, `${childId} is not a carousel item`);
        if (child.pollsLeft > 0 || child.finalStatus !== 'FINISHED') {
          return graphError(response, THREADS_ERRORS.mediaNotFound);
        }
      }
    } else if (mediaType === 'IMAGE') {
      if (!params.image_url) return invalid(response, 'Param image_url is required for IMAGE');
    } else if (mediaType === 'VIDEO') {
      if (!params.video_url) return invalid(response, 'Param video_url is required for VIDEO');
    } else if (mediaType === 'TEXT') {
      if (!params.text) return invalid(response, 'Param text is required for TEXT');
    } else {
      return invalid(response, `Param media_type must be one of TEXT, IMAGE, VIDEO, CAROUSEL`);
    }
    if (isCarouselItem && (params.text || params.reply_to_id)) {
      return invalid(response, 'A carousel item takes no text and no reply_to_id');
    }
    if (Array.from(params.text ?? '').length > 500) {
      return graphError(response, THREADS_ERRORS.textTooLong);
    }
    if (params.reply_to_id && !posts.some((post) => post.id === params.reply_to_id)) {
      return invalid(response, `Param reply_to_id ${params.reply_to_id} is not a post`);
    }
    const polls = scripts.take(recorded, (a) => 'processingPolls' in a);
    const ending = scripts.take(recorded, (a) => 'containerStatus' in a);
    const container: ThreadsContainer = {
      id: newId(),
      userId,
      mediaType: mediaType as ThreadsContainer['mediaType'],
      params,
      isCarouselItem,
      pollsLeft:
        polls && 'processingPolls' in polls
          ? polls.processingPolls
          : mediaType === 'VIDEO'
            ? (options.videoProcessingPolls ?? 1)
            : 0,
      finalStatus: ending && 'containerStatus' in ending ? ending.containerStatus : 'FINISHED',
      errorMessage: ending && 'containerStatus' in ending ? (ending.errorMessage ?? null) : null,
      published: false,
    };
    containers.push(container);
    sendJson(response, 200, { id: container.id });
  }

  function publish(
    request: IncomingMessage,
    response: ServerResponse,
    userId: string,
    params: Record<string, string>,
    recorded: RecordedRequest,
  ) {
    const container = containers.find((c) => c.id === params.creation_id);
    if (!container || container.userId !== userId || container.isCarouselItem) {
      return graphError(response, THREADS_ERRORS.mediaNotFound);
    }
    if (container.published) return invalid(response, 'The container was already published');
    if (container.pollsLeft > 0 || container.finalStatus !== 'FINISHED') {
      return graphError(response, THREADS_ERRORS.mediaNotFound);
    }
    const replyTo = container.params.reply_to_id ?? null;
    const used = posts.filter((post) => post.userId === userId && post.replyTo === null).length;
    if (replyTo === null && options.postLimit !== undefined && used >= options.postLimit) {
      return graphError(response, THREADS_ERRORS.publishingLimit);
    }
    container.published = true;
    const id = newId();
    const children = (container.params.children ?? '').split(',').filter(Boolean);
    const urlOf = (c: ThreadsContainer | undefined) =>
      c?.params.image_url ?? c?.params.video_url ?? '';
    posts.push({
      id,
      containerId: container.id,
      userId,
      mediaType: container.mediaType,
      text: container.params.text ?? '',
      replyTo,
      mediaUrls:
        container.mediaType === 'CAROUSEL'
          ? children.map((child) => urlOf(containers.find((c) => c.id === child)))
          : container.mediaType === 'TEXT'
            ? []
            : [urlOf(container)],
      // Graph's timestamp format: +0000 offsets, no milliseconds.
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
      permalink: `https://www.threads.net/@${profile.username}/post/C${Buffer.from(id).toString('base64url').slice(0, 10)}`,
    });
    if (scripts.take(recorded, (a) => 'dropAfterPublish' in a)) return dropConnection(request);
    sendJson(response, 200, { id });
  }

  /** GET /{user}/threads (top-level posts) or /replies, newest first. */
  function recent(
    response: ServerResponse,
    userId: string,
    edge: 'threads' | 'replies',
    params: Record<string, string>,
  ) {
    const limit = Math.min(Number(params.limit ?? 25) || 25, 100);
    const fields = (params.fields ?? 'id').split(',');
    const mine = posts
      .filter((post) => post.userId === userId && (edge === 'replies') === (post.replyTo !== null))
      .reverse()
      .slice(0, limit);
    sendJson(response, 200, {
      data: mine.map((post) => ({
        id: post.id,
        ...(fields.includes('text') && post.text !== '' ? { text: post.text } : {}),
        ...(fields.includes('timestamp') ? { timestamp: post.timestamp } : {}),
      })),
      paging: { cursors: { before: 'b', after: 'a' } },
    });
  }

  /** GET /v1.0/{threads-media-id}/insights?metric=: unknown or removed posts are 100/33. */
  function postInsights(response: ServerResponse, id: string, params: Record<string, string>) {
    const exists = posts.some((post) => post.id === id) || insights.isSet(id);
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

  /**
   * DELETE /v1.0/{threads-media-id}: a published post or reply disappears (from `posts`, the
   * profile's lists and its insights) -> `{ success: true, deleted_id }`; an id that is not a
   * post (never published, or deleted) is 100/33.
   */
  function remove(response: ServerResponse, id: string) {
    const index = posts.findIndex((post) => post.id === id);
    if (index < 0) {
      return graphError(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported delete request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      });
    }
    posts.splice(index, 1);
    insights.remove(id);
    sendJson(response, 200, { success: true, deleted_id: id });
  }

  function read(response: ServerResponse, id: string, params: Record<string, string>) {
    const fields = (params.fields ?? 'id').split(',');
    const post = posts.find((p) => p.id === id);
    if (post) {
      return sendJson(response, 200, {
        id,
        ...(fields.includes('permalink') ? { permalink: post.permalink } : {}),
        ...(fields.includes('text') ? { text: post.text } : {}),
      });
    }
    const container = containers.find((c) => c.id === id);
    if (!container || fields.includes('permalink')) {
      return graphError(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist`,
      });
    }
    let status: string;
    if (container.published) status = 'PUBLISHED';
    else if (container.pollsLeft > 0) {
      container.pollsLeft -= 1;
      status = 'IN_PROGRESS';
    } else status = container.finalStatus;
    const errorMessage =
      status === 'ERROR' ? (container.errorMessage ?? 'FAILED_PROCESSING_VIDEO') : null;
    sendJson(response, 200, {
      id,
      ...(fields.includes('status') ? { status } : {}),
      ...(fields.includes('error_message') && errorMessage ? { error_message: errorMessage } : {}),
    });
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    containers,
    posts,
    addReply: replies.addReply,
    hiddenReplies: replies.hidden,
    close: server.close,
    script(step) {
      let matches: (r: RecordedRequest) => boolean = () => true;
      if ('error' in step || 'drop' in step) {
        const on = step.on ?? 'any';
        const text = 'error' in step ? step.text : undefined;
        matches = (r) =>
          (on === 'any' || callOf(r.method, r.path, r.query.fields ?? null) === on) &&
          (text === undefined || textOf(r) === text);
      }
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (token) => expired.add(token),
    oauth,
    profile,
    longLivedTokens,
    insights,
  };
}
