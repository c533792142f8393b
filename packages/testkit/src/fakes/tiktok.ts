// A local TikTok Content Posting API speaking the formats of docs/platforms.md#tiktok: `{ data, error }` envelopes,
// creator info, video/inbox/photo init, status fetch, and Login Kit: consent
// (/v2/auth/authorize/), the token endpoint (code exchange and refresh) and /v2/user/info/.
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
  sendRawJson,
} from './http.ts';
import { answerConsent, consentQueryOf, FakeOAuthProvider, type TokenAnswer } from './oauth.ts';
import type { PostNumbers } from './post-numbers.ts';
import { createTiktokReading, type TiktokCount } from './tiktok-metrics.ts';

/**
 * Documented error codes with their HTTP status. The first six are TikTok's documented v2 error
 * codes; the statuses of the "also seen" init errors are not documented (400/403 chosen here).
 */
export const TIKTOK_ERRORS = {
  access_token_invalid: {
    status: 401,
    message: 'The access token is invalid or not found in the request.',
  },
  scope_not_authorized: {
    status: 401,
    message: 'The user did not authorize the scope required for completing this request.',
  },
  invalid_params: { status: 400, message: 'One or more fields in request is invalid.' },
  invalid_file_upload: {
    status: 400,
    message: 'The uploaded file does not meet API specifications.',
  },
  rate_limit_exceeded: {
    status: 429,
    message: 'The API rate limit was exceeded. Please try again later.',
  },
  internal_error: { status: 500, message: 'Something went wrong. Please try again later.' },
  spam_risk_too_many_posts: {
    status: 403,
    message: 'The daily post cap from the API is reached for the current user.',
  },
  spam_risk_too_many_pending_share: {
    status: 403,
    message: 'The user has too many pending shares.',
  },
  spam_risk_user_banned_from_posting: {
    status: 403,
    message: 'The user is banned from making new posts.',
  },
  url_ownership_unverified: {
    status: 403,
    message: 'Please review our URL ownership verification rules.',
  },
  privacy_level_option_mismatch: {
    status: 400,
    message: 'privacy_level is not one of the privacy_level_options of the creator.',
  },
  unaudited_client_can_only_post_to_private_accounts: {
    status: 403,
    message: 'Unaudited clients can only post to a private account.',
  },
  picture_size_check_failed: {
    status: 400,
    message: 'The picture size does not meet the requirements.',
  },
  duration_check_failed: {
    status: 400,
    message: 'The video duration is longer than max_video_post_duration_sec.',
  },
  video_pull_failed: { status: 400, message: 'The video could not be pulled from the URL.' },
  photo_pull_failed: { status: 400, message: 'The photo could not be pulled from the URL.' },
} as const;
export type TiktokErrorCode = keyof typeof TIKTOK_ERRORS;

export interface TiktokCreator {
  creator_avatar_url: string;
  creator_username: string;
  creator_nickname: string;
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export type TiktokScript =
  /** The next `times` calls (to `path` if given, token endpoint excluded) answer this error. */
  | { error: TiktokErrorCode; path?: string; times?: number; message?: string }
  /** The next `times` calls (to `path` if given) get their connection dropped, no answer. */
  | { drop: true; path?: string; times?: number }
  /** The next `times` publishes created report PROCESSING_* for `processingPolls` status fetches. */
  | { processingPolls: number; times?: number }
  /** The next `times` publishes created end FAILED with this fail_reason. */
  | { failPublish: string; times?: number }
  /** The next `times` token refreshes answer `{ error, error_description, log_id }`. */
  | { tokenError: string; status?: number; times?: number };

export interface TiktokPublish {
  publishId: string;
  endpoint: 'video' | 'inbox_video' | 'content';
  body: Record<string, unknown>;
  draft: boolean;
  pollsLeft: number;
  failReason: string | null;
  /** int64 post id given once PUBLISH_COMPLETE. */
  postId: string;
  statusFetches: number;
}

export interface FakeTiktok extends FakeServer {
  script(step: TiktokScript): void;
  /** Publishes created by the init endpoints, in order. */
  publishes: TiktokPublish[];
  setCreator(creator: Partial<TiktokCreator>): void;
  /** Further calls with this access token answer access_token_invalid. */
  expireAccessToken(token: string): void;
  /** Refreshing with this token answers invalid_grant (tokens of the OAuth flow included). */
  revokeRefreshToken(token: string): void;
  /**
   * Login Kit (consent, code exchange, refresh of the tokens it issued; PKCE optional,
   * refresh tokens rotate): script denials and refusals here.
   */
  oauth: FakeOAuthProvider;
  /** What /v2/user/info/ answers for the user who consents. */
  user: { open_id: string; display_name: string };
  /** Init calls refused with 429 by `initRateLimit`. */
  readonly rateLimitedCalls: number;
  /**
   * POST /v2/video/query/ (tiktok-metrics.ts): per-video counts under TikTok's names (null:
   * left out); setting some makes the video exist, `remove` drops it from `videos`.
   */
  counts: PostNumbers<TiktokCount>;
  /**
   * The scopes of a token the fake did not issue (default: every scope, video.list included);
   * the ones it issued hold what was consented.
   */
  tokenScopes: Map<string, string[]>;
}

export interface FakeTiktokOptions {
  creator?: Partial<TiktokCreator>;
  /** Status fetches answering PROCESSING_* before a publish is terminal. Default 1. */
  processingPolls?: number;
  /** When set, photo URLs not starting with one of these answer url_ownership_unverified. */
  verifiedUrlPrefixes?: string[];
  /** The app's client key and secret for the OAuth flow (default tiktok-client-key/-secret). */
  oauth?: { clientId: string; clientSecret: string };
  /**
   * TikTok's per-user limit on the init endpoints: `limit` calls per fixed `windowMs` per access
   * token (TikTok: 6 per minute). Past it: 429 rate_limit_exceeded, with a `Retry-After` header
   * (seconds to the window's end) only when `retryAfterHeader` is set (TikTok does not document
   * one). Default: no limit.
   */
  initRateLimit?: { limit: number; windowMs: number; retryAfterHeader?: boolean };
}

const TOKEN_PATH = '/v2/oauth/token/';

const INIT_PATHS = {
  '/v2/post/publish/video/init/': 'video',
  '/v2/post/publish/inbox/video/init/': 'inbox_video',
  '/v2/post/publish/content/init/': 'content',
} as const;

export async function startFakeTiktok(options: FakeTiktokOptions = {}): Promise<FakeTiktok> {
  const requests: RecordedRequest[] = [];
  const publishes: TiktokPublish[] = [];
  const scripts = new ScriptQueue<TiktokScript>();
  const expiredAccess = new Set<string>();
  const revokedRefresh = new Set<string>();
  /** Access tokens issued by refreshing a token the OAuth provider did not issue (older tests). */
  const refreshedAccess = new Set<string>();
  let creator: TiktokCreator = {
    creator_avatar_url: 'https://p16.tiktokcdn.example/avatar.jpeg',
    creator_username: 'fake.creator',
    creator_nickname: 'Fake Creator',
    privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    comment_disabled: false,
    duet_disabled: false,
    stitch_disabled: false,
    max_video_post_duration_sec: 600,
    ...options.creator,
  };
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'tiktok-client-key',
    clientSecret: options.oauth?.clientSecret ?? 'tiktok-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 86_400,
    rotateRefreshTokens: true,
  });
  const user = { open_id: 'fake-open-id', display_name: 'Fake Creator' };
  let counter = 0;
  const logId = () => `2024${String(++counter).padStart(10, '0')}FAKE`;
  const reading = createTiktokReading(() =>
    publishes.flatMap((p) =>
      !p.draft && p.failReason === null && p.pollsLeft === 0 ? [p.postId] : [],
    ),
  );
  const tokenScopes = new Map<string, string[]>();
  const scopesOf = (token: string): string[] =>
    oauth.issued.find((tokens) => tokens.accessToken === token)?.scopes ??
    tokenScopes.get(token) ?? ['user.info.basic', 'video.publish', 'video.upload', 'video.list'];

  const ok = (response: ServerResponse, data: unknown) =>
    sendJson(response, 200, { data, error: { code: 'ok', message: '', log_id: logId() } });
  const error = (response: ServerResponse, code: string, message?: string) => {
    const known = TIKTOK_ERRORS[code as TiktokErrorCode];
    sendJson(response, known?.status ?? 400, {
      data: {},
      error: { code, message: message ?? known?.message ?? code, log_id: logId() },
    });
  };

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);

    if (url.pathname === TOKEN_PATH) return token(response, body, recorded);
    if (url.pathname === '/v2/auth/authorize/') {
      const answer = oauth.authorize(consentQueryOf(url.searchParams, 'client_key'));
      return answerConsent(response, answer, { log_id: logId() });
    }

    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return error(response, scripted.error, scripted.message);

    if (request.method !== 'POST' && url.pathname !== '/v2/user/info/') {
      return error(response, 'invalid_params', 'POST only');
    }
    const accessToken = bearerToken(request.headers);
    if (!accessToken || expiredAccess.has(accessToken)) {
      return error(response, 'access_token_invalid');
    }
    const json = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;

    if (url.pathname === '/v2/user/info/') {
      // Identity needs a token this fake issued (publishing accepts any unexpired token).
      if (!oauth.isValidAccessToken(accessToken) && !refreshedAccess.has(accessToken)) {
        return error(response, 'access_token_invalid');
      }
      return ok(response, { user });
    }
    if (url.pathname === '/v2/post/publish/creator_info/query/') return ok(response, creator);
    const endpoint = INIT_PATHS[url.pathname as keyof typeof INIT_PATHS];
    if (endpoint) return init(response, endpoint, json, recorded, accessToken);
    if (url.pathname === '/v2/post/publish/status/fetch/') return status(response, json);
    if (url.pathname === '/v2/video/query/') {
      const answer = reading.queryVideos(
        url.searchParams.get('fields'),
        body,
        scopesOf(accessToken),
      );
      return 'data' in answer
        ? ok(response, answer.data)
        : error(response, answer.error, answer.message);
    }
    sendJson(response, 404, {
      data: {},
      error: { code: 'not_found', message: 'unknown path', log_id: logId() },
    });
  }

  let rateLimitedCalls = 0;
  /** Init calls per access token in the current fixed window. */
  const initWindows = new Map<string, { startedAt: number; count: number }>();
  /** Answers 429 when `token` has used its init calls of this window (and counts the call). */
  function rateLimited(response: ServerResponse, token: string): boolean {
    const limit = options.initRateLimit;
    if (!limit) return false;
    const now = Date.now();
    let window = initWindows.get(token);
    if (!window || now - window.startedAt >= limit.windowMs) {
      window = { startedAt: now, count: 0 };
      initWindows.set(token, window);
    }
    if (window.count < limit.limit) {
      window.count += 1;
      return false;
    }
    rateLimitedCalls += 1;
    if (limit.retryAfterHeader) {
      const seconds = Math.ceil((window.startedAt + limit.windowMs - now) / 1000);
      response.setHeader('retry-after', String(Math.max(1, seconds)));
    }
    error(response, 'rate_limit_exceeded');
    return true;
  }

  function init(
    response: ServerResponse,
    endpoint: TiktokPublish['endpoint'],
    body: Record<string, unknown>,
    recorded: RecordedRequest,
    accessToken: string,
  ) {
    if (rateLimited(response, accessToken)) return;
    const postInfo = (body.post_info ?? {}) as Record<string, unknown>;
    const source = (body.source_info ?? {}) as Record<string, unknown>;
    if (source.source !== 'PULL_FROM_URL' && source.source !== 'FILE_UPLOAD') {
      return error(response, 'invalid_params', 'source_info.source is invalid');
    }
    let draft = endpoint === 'inbox_video';
    if (endpoint === 'content') {
      const images = source.photo_images;
      if (body.media_type !== 'PHOTO')
        return error(response, 'invalid_params', 'media_type must be PHOTO');
      if (body.post_mode !== 'DIRECT_POST' && body.post_mode !== 'MEDIA_UPLOAD') {
        return error(response, 'invalid_params', 'post_mode is invalid');
      }
      if (!Array.isArray(images) || images.length === 0 || images.length > 35) {
        return error(response, 'invalid_params', 'photo_images must hold 1 to 35 URLs');
      }
      if (
        String(postInfo.title ?? '').length > 90 ||
        String(postInfo.description ?? '').length > 4000
      ) {
        return error(response, 'invalid_params', 'title or description is too long');
      }
      const prefixes = options.verifiedUrlPrefixes;
      if (prefixes && images.some((u) => !prefixes.some((p) => String(u).startsWith(p)))) {
        return error(response, 'url_ownership_unverified');
      }
      draft = body.post_mode === 'MEDIA_UPLOAD';
    } else if (typeof source.video_url !== 'string') {
      return error(response, 'invalid_params', 'source_info.video_url is required');
    }
    if (endpoint === 'video' && String(postInfo.title ?? '').length > 2200) {
      return error(response, 'invalid_params', 'title is too long');
    }
    if (!draft && !creator.privacy_level_options.includes(String(postInfo.privacy_level))) {
      return error(response, 'privacy_level_option_mismatch');
    }
    const flags = scripts.take(recorded, (a) => 'processingPolls' in a);
    const failure = scripts.take(recorded, (a) => 'failPublish' in a);
    const publish: TiktokPublish = {
      publishId: `v_pub_url~v2-1.${7300000000000000000n + BigInt(publishes.length + 1)}`,
      endpoint,
      body,
      draft,
      pollsLeft:
        flags && 'processingPolls' in flags
          ? flags.processingPolls
          : (options.processingPolls ?? 1),
      failReason: failure && 'failPublish' in failure ? failure.failPublish : null,
      postId: String(7301234567890123456n + BigInt(publishes.length)),
      statusFetches: 0,
    };
    publishes.push(publish);
    ok(response, { publish_id: publish.publishId });
  }

  function status(response: ServerResponse, body: Record<string, unknown>) {
    const publish = publishes.find((p) => p.publishId === body.publish_id);
    if (!publish) return error(response, 'invalid_params', 'publish_id not found');
    publish.statusFetches += 1;
    let data: Record<string, unknown>;
    let ids = '[]';
    if (publish.pollsLeft > 0) {
      publish.pollsLeft -= 1;
      const stage = publish.statusFetches === 1 ? 'PROCESSING_DOWNLOAD' : 'PROCESSING_UPLOAD';
      data = { status: stage, uploaded_bytes: 0, downloaded_bytes: 0 };
    } else if (publish.failReason !== null) {
      data = { status: 'FAILED', fail_reason: publish.failReason };
    } else if (publish.draft) {
      data = { status: 'SEND_TO_USER_INBOX' };
    } else {
      data = { status: 'PUBLISH_COMPLETE', downloaded_bytes: 1024 };
      ids = `[${publish.postId}]`; // a JSON int64, as documented (beyond 2^53)
    }
    const text = JSON.stringify({
      data: { ...data, publicaly_available_post_id: '__IDS__' },
      error: { code: 'ok', message: '', log_id: logId() },
    }).replace('"__IDS__"', ids);
    sendRawJson(response, 200, text);
  }

  function token(response: ServerResponse, body: unknown, recorded: RecordedRequest) {
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;
    const scripted = scripts.take(recorded, (a) => 'tokenError' in a);
    const refuse = (status: number, code: string, description: string) =>
      sendJson(response, status, { error: code, error_description: description, log_id: logId() });
    const tokens = (answer: TokenAnswer) => {
      if (!answer.ok) return refuse(answer.status, answer.error, answer.description);
      return sendJson(response, 200, {
        access_token: answer.tokens.accessToken,
        expires_in: answer.tokens.expiresIn,
        open_id: user.open_id,
        refresh_token: answer.tokens.refreshToken,
        refresh_expires_in: 31_536_000,
        scope: answer.tokens.scopes.join(','),
        token_type: 'Bearer',
      });
    };
    if (scripted && 'tokenError' in scripted) {
      return refuse(scripted.status ?? 400, scripted.tokenError, 'scripted token error');
    }
    if (!form.client_key || !form.client_secret)
      return refuse(401, 'invalid_client', 'Client key or secret is invalid.');
    if (form.grant_type === 'authorization_code') {
      const answer = oauth.exchangeCode({
        code: form.code,
        clientId: form.client_key,
        clientSecret: form.client_secret,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
      });
      return tokens(answer);
    }
    if (form.grant_type !== 'refresh_token')
      return refuse(400, 'unsupported_grant_type', 'grant_type is invalid.');
    if (!form.refresh_token || revokedRefresh.has(form.refresh_token)) {
      return refuse(400, 'invalid_grant', 'Refresh token is invalid or expired.');
    }
    if (oauth.issuedRefreshToken(form.refresh_token)) {
      // A token of the OAuth flow: the provider checks the client and rotates it.
      return tokens(
        oauth.refresh({
          refreshToken: form.refresh_token,
          clientId: form.client_key,
          clientSecret: form.client_secret,
        }),
      );
    }
    // Any other refresh token (the publisher tests bring their own) is accepted once.
    revokedRefresh.add(form.refresh_token); // TikTok rotates refresh tokens
    const n = ++counter;
    refreshedAccess.add(`act.refreshed.${n}`);
    sendJson(response, 200, {
      access_token: `act.refreshed.${n}`,
      expires_in: 86400,
      refresh_token: `rft.refreshed.${n}`,
      refresh_expires_in: 31536000,
      open_id: 'fake-open-id',
      scope: 'user.info.basic,video.publish,video.upload',
      token_type: 'Bearer',
    });
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    publishes,
    get rateLimitedCalls() {
      return rateLimitedCalls;
    },
    close: server.close,
    script(step) {
      let matches: (r: RecordedRequest) => boolean;
      if ('tokenError' in step) {
        matches = (r) => r.path === TOKEN_PATH;
      } else if ('processingPolls' in step || 'failPublish' in step) {
        matches = () => true;
      } else {
        const path = step.path;
        matches = (r) => (path === undefined ? r.path !== TOKEN_PATH : r.path === path);
      }
      scripts.add(step, matches, step.times ?? 1);
    },
    setCreator(partial) {
      creator = { ...creator, ...partial };
    },
    expireAccessToken: (token) => expiredAccess.add(token),
    revokeRefreshToken(token) {
      revokedRefresh.add(token);
      oauth.revoke(token);
    },
    oauth,
    user,
    counts: reading.numbers,
    tokenScopes,
  };
}
