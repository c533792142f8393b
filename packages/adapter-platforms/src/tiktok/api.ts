// TikTok Content Posting API wire calls (docs/platforms.md#tiktok; developers.tiktok.com "Content Posting API").
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, asString, excerpt, isRecord } from '../shared/http.ts';
import {
  clientTokenEndpoint,
  publisherRefresher,
  type RefusalRule,
  refreshGrant,
} from '../shared/oauth.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { TiktokSettings } from './settings.ts';

export interface CreatorInfo {
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  username: string | null;
}

export interface PublishStatus {
  status: string;
  failReason: string | null;
  /** Exact digits (int64 ids do not survive JSON.parse as numbers). */
  publicPostIds: string[];
}

/** Codes whose failure may go away on a later attempt (besides any 5xx answer). */
const RETRYABLE_CODES = new Set(['internal_error']);
/** TikTok's rate limits are per minute; without a Retry-After, wait that long. */
const TIKTOK_RATE_WINDOW_MS = 60_000;

export function createTiktokApi(
  config: TiktokSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  /** POST with the `{ data, error }` envelope; returns `data` or throws the mapped failure. */
  async function post(path: string, token: string, body?: unknown) {
    const response = await apiCall(
      runtime,
      signal,
      {
        url: `${config.apiBaseUrl}${path}`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json; charset=UTF-8',
        },
        body: body === undefined ? null : JSON.stringify(body),
      },
      `TikTok ${path}`,
    );
    const envelope = isRecord(response.json) ? response.json : {};
    const error = isRecord(envelope.error) ? envelope.error : {};
    const code = asString(error.code);
    const ok = response.status >= 200 && response.status < 300;
    if (ok && (code === undefined || code === 'ok')) {
      return { data: isRecord(envelope.data) ? envelope.data : {}, text: response.text };
    }
    const message =
      asString(error.message) || (code ? '' : excerpt(response.text)) || `HTTP ${response.status}`;
    if (code === 'access_token_invalid') throw new TokenRejected(code, message);
    if (code === 'rate_limit_exceeded' || response.status === 429) {
      // TikTok's windows are per minute (6 init calls per user token): wait one out.
      const retryAt = retryAtFrom(response.headers, TIKTOK_RATE_WINDOW_MS);
      throw throttled(code ?? 'rate_limit_exceeded', message, retryAt);
    }
    const retryable = (code !== undefined && RETRYABLE_CODES.has(code)) || response.status >= 500;
    throw fail(code ?? `http_${response.status}`, message, retryable);
  }

  return {
    async creatorInfo(token: string): Promise<CreatorInfo> {
      const { data } = await post('/v2/post/publish/creator_info/query/', token);
      const options = Array.isArray(data.privacy_level_options)
        ? data.privacy_level_options.filter((o): o is string => typeof o === 'string')
        : [];
      return {
        privacyLevelOptions: options,
        commentDisabled: data.comment_disabled === true,
        duetDisabled: data.duet_disabled === true,
        stitchDisabled: data.stitch_disabled === true,
        username: asString(data.creator_username) ?? null,
      };
    },

    /** Direct video post, inbox (draft) video or photo post; returns the publish_id. */
    async init(
      endpoint: 'video' | 'inbox_video' | 'content',
      token: string,
      body: unknown,
    ): Promise<string> {
      const path = {
        video: '/v2/post/publish/video/init/',
        inbox_video: '/v2/post/publish/inbox/video/init/',
        content: '/v2/post/publish/content/init/',
      }[endpoint];
      const { data } = await post(path, token, body);
      const publishId = asString(data.publish_id);
      if (!publishId) throw fail('invalid_response', `TikTok ${path} returned no publish_id`, true);
      return publishId;
    },

    /**
     * POST /v2/video/query/?fields=…: the user's videos among `ids` (at most 20), each with the
     * fields asked; a video TikTok does not return is not there (deleted, or not the user's).
     */
    async queryVideos(
      token: string,
      ids: readonly string[],
      fields: readonly string[],
    ): Promise<Record<string, unknown>[]> {
      const { data } = await post(`/v2/video/query/?fields=${fields.join(',')}`, token, {
        filters: { video_ids: ids },
      });
      return Array.isArray(data.videos) ? data.videos.filter(isRecord) : [];
    },

    async status(token: string, publishId: string): Promise<PublishStatus> {
      const { data, text } = await post('/v2/post/publish/status/fetch/', token, {
        publish_id: publishId,
      });
      return {
        status: asString(data.status) ?? '',
        failReason: asString(data.fail_reason) ?? null,
        publicPostIds: publicPostIds(text),
      };
    },
  };
}

/**
 * `publicaly_available_post_id` (sic) is documented as a list of int64, which JSON.parse would
 * round; the digits are read from the raw text instead (quoted strings are accepted too).
 */
export function publicPostIds(text: string): string[] {
  const match = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(text);
  if (!match?.[1]) return [];
  return match[1]
    .split(',')
    .map((item) => item.trim().replace(/^"(.*)"$/, '$1'))
    .filter((item) => /^\d+$/.test(item));
}

/**
 * Token-endpoint errors that blame our app, not the user's grant (a wrong client key/secret, a
 * malformed request): never a reason to expire a connection.
 */
const TIKTOK_APP_ERRORS = new Set([
  'invalid_client',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);

/**
 * Which refresh refusals end the grant. TikTok's code for an expired or revoked refresh token is
 * not confirmed (invalid_grant is what the fake answers), so any refusal that does not blame
 * our app counts, whatever its status (4xx or an `error` field in a 200).
 */
const tiktokRefused: RefusalRule = (error, _description, status) =>
  status < 500 && status !== 429 && !TIKTOK_APP_ERRORS.has(error);

/**
 * POST /v2/oauth/token/ (form, client_key + client_secret): the code exchange (Login Kit) and
 * the refresh share it. Null when the client key or secret is not set.
 */
export function tiktokTokenEndpoint(config: TiktokSettings, runtime: PublisherRuntime) {
  const { clientId: clientKey, clientSecret } = config;
  return clientTokenEndpoint(
    runtime,
    `${config.tokenBaseUrl}/v2/oauth/token/`,
    { client_key: clientKey ?? '', client_secret: clientSecret ?? '' },
    {
      configured: Boolean(clientKey && clientSecret),
      headers: { 'cache-control': 'no-cache' },
      refused: tiktokRefused,
    },
  );
}

/**
 * The publisher's renewal on access_token_invalid: the same refresh_token request as the
 * connector's. TikTok rotates the refresh token (the new one is stored).
 */
export const tiktokRefresher = (config: TiktokSettings, runtime: PublisherRuntime) =>
  publisherRefresher(refreshGrant(tiktokTokenEndpoint(config, runtime), 'TikTok'));
