// TikTok Content Posting API wire calls (PLATFORMS.md; developers.tiktok.com "Content Posting API").
import type { PlatformsConfig, PublisherRuntime } from '../config.ts';
import type { TokenRefresher } from '../shared/auth.ts';
import {
  asString,
  excerpt,
  FORM_CONTENT_TYPE,
  formBody,
  httpCall,
  isRecord,
} from '../shared/http.ts';
import { connectionExpired, fail, TokenRejected } from '../shared/outcome.ts';

export type TiktokConfig = PlatformsConfig['tiktok'];

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

/** Codes whose failure may go away on a later attempt (besides any 429 / 5xx answer). */
const RETRYABLE_CODES = new Set(['rate_limit_exceeded', 'internal_error']);

export function createTiktokApi(
  config: TiktokConfig,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const base = config.baseUrl.replace(/\/+$/, '');

  /** POST with the `{ data, error }` envelope; returns `data` or throws the mapped failure. */
  async function post(path: string, token: string, body?: unknown) {
    const response = await httpCall(
      {
        url: `${base}${path}`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json; charset=UTF-8',
        },
        body: body === undefined ? null : JSON.stringify(body),
        dispatcher: runtime.apiDispatcher,
        signal,
        timeoutMs: runtime.requestTimeoutMs,
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
    const retryable =
      (code !== undefined && RETRYABLE_CODES.has(code)) ||
      response.status === 429 ||
      response.status >= 500;
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

/** POST /v2/oauth/token/ (form) with grant_type=refresh_token; TikTok rotates the refresh token. */
export function tiktokRefresher(
  config: TiktokConfig,
  runtime: PublisherRuntime,
): TokenRefresher | null {
  const { clientKey, clientSecret } = config;
  if (!clientKey || !clientSecret) return null;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/v2/oauth/token/`;
  return async (refreshToken, signal) => {
    const response = await httpCall(
      {
        url,
        method: 'POST',
        headers: { 'content-type': FORM_CONTENT_TYPE, 'cache-control': 'no-cache' },
        body: formBody({
          client_key: clientKey,
          client_secret: clientSecret,
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        }),
        dispatcher: runtime.apiDispatcher,
        signal,
        timeoutMs: runtime.requestTimeoutMs,
      },
      'TikTok token refresh',
    );
    const body = isRecord(response.json) ? response.json : {};
    const accessToken = asString(body.access_token);
    const error = asString(body.error);
    if (response.status >= 200 && response.status < 300 && accessToken && !error) {
      const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : null;
      return {
        accessToken,
        refreshToken: asString(body.refresh_token) ?? null,
        expiresInSeconds: expiresIn,
      };
    }
    const message = `${error ?? `http_${response.status}`}: ${asString(body.error_description) ?? excerpt(response.text)}`;
    if (response.status >= 500 || response.status === 429) {
      throw fail(error ?? `http_${response.status}`, `TikTok token refresh: ${message}`, true);
    }
    // Errors here are documented as { error, error_description, log_id }; whether TikTok answers
    // them with a 4xx or a 200 is not confirmed, so any refusal counts.
    throw connectionExpired(`TikTok token refresh refused: ${message}`);
  };
}
