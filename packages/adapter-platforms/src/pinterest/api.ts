// Pinterest API v5 wire calls (docs/platforms.md#pinterest; developers.pinterest.com "Create
// Pin", "Register media upload", "Get media upload details", "List Pins on board"), and its
// token endpoint (POST /v5/oauth/token, HTTP Basic client authentication).
import type { IncomingHttpHeaders } from 'node:http';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import {
  asString,
  excerpt,
  type HttpResult,
  header,
  isRecord,
  uploadCall,
} from '../shared/http.ts';
import { type MediaPart, multipart, multipartHeaders } from '../shared/multipart.ts';
import {
  basicAuth,
  clientTokenEndpoint,
  publisherRefresher,
  refreshGrant,
  type TokenRenewal,
} from '../shared/oauth.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { PinterestSettings } from './settings.ts';

/** Pinterest's Standard limits are per minute: without a reset time, wait one out. */
export const PINTEREST_THROTTLE_WAIT_MS = 60_000;

/** A Pin as the board listing gives it back (what a lost answer is matched on). */
export interface RecentPin {
  id: string;
  description: string;
  /** Epoch ms (0 when Pinterest gave none). */
  createdAt: number;
}

/** What POST /v5/media answers: where to send the bytes, and with which form fields. */
export interface MediaUpload {
  mediaId: string;
  uploadUrl: string;
  uploadParameters: Record<string, string>;
}

export function createPinterestApi(
  config: PinterestSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const call = bearerClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    label: 'Pinterest',
    failure: pinterestFailure,
  });

  const objectOf = (response: HttpResult): Record<string, unknown> =>
    isRecord(response.json) ? response.json : {};

  return {
    /** POST /v5/pins -> the new Pin's id. */
    async createPin(token: string, pin: Record<string, unknown>): Promise<string> {
      const response = await call('POST', '/v5/pins', token, 'create Pin', { json: pin });
      const id = asString(objectOf(response).id);
      // The Pin exists (2xx) but we cannot name it: not retried (it would post a second one).
      if (!id) throw fail('invalid_response', 'Pinterest create Pin gave no id', false);
      return id;
    },

    /** GET /v5/boards/{board_id}/pins: the board's latest Pins, newest first. */
    async boardPins(token: string, boardId: string, pageSize = 25): Promise<RecentPin[]> {
      const path = `/v5/boards/${encodeURIComponent(boardId)}/pins?page_size=${pageSize}`;
      const response = await call('GET', path, token, `board ${boardId} Pins`);
      const items = objectOf(response).items;
      return (Array.isArray(items) ? items : []).filter(isRecord).map((item) => ({
        id: asString(item.id) ?? '',
        description: asString(item.description) ?? '',
        createdAt: pinterestTime(item.created_at),
      }));
    },

    /** POST /v5/media `{ media_type: 'video' }` -> the media id and its upload form. */
    async registerVideo(token: string): Promise<MediaUpload> {
      const what = 'register media upload';
      const response = await call('POST', '/v5/media', token, what, {
        json: { media_type: 'video' },
      });
      const body = objectOf(response);
      const mediaId = asString(body.media_id);
      const uploadUrl = asString(body.upload_url);
      const parameters = isRecord(body.upload_parameters) ? body.upload_parameters : {};
      if (!mediaId || !uploadUrl) {
        throw fail('invalid_response', `Pinterest ${what} gave no media_id/upload_url`, true);
      }
      const uploadParameters: Record<string, string> = {};
      for (const [name, value] of Object.entries(parameters)) {
        const text = asString(value);
        if (text !== undefined) uploadParameters[name] = text;
      }
      return { mediaId, uploadUrl, uploadParameters };
    },

    /**
     * The video bytes (streamed) to the upload URL as a multipart form: the upload parameters,
     * then the file. The upload URL is a storage service's (S3), not the API: no token goes
     * there, and it answers 204 without a body, or an XML error.
     */
    async uploadVideo(upload: MediaUpload, file: MediaPart): Promise<void> {
      const form = multipart(file, upload.uploadParameters, 'file');
      const response = await uploadCall(
        runtime,
        signal,
        { url: upload.uploadUrl, method: 'POST', headers: multipartHeaders(form), body: form.body },
        'Pinterest video upload',
      );
      if (response.status >= 200 && response.status < 300) return;
      // A 403 (the signed policy expired) is worth another try: the next run registers afresh.
      // A 5xx is the storage service's trouble; other refusals (a size outside the policy) stay.
      const code = /<Code>([^<]+)<\/Code>/.exec(response.text)?.[1] ?? `http_${response.status}`;
      throw fail(
        code,
        `Pinterest video upload: HTTP ${response.status}${response.text ? `: ${excerpt(response.text)}` : ''}`,
        response.status >= 500 || response.status === 403,
      );
    },

    /** GET /v5/media/{media_id} -> status (registered, processing, succeeded, failed). */
    async mediaStatus(token: string, mediaId: string): Promise<string> {
      const path = `/v5/media/${encodeURIComponent(mediaId)}`;
      const response = await call('GET', path, token, `media ${mediaId}`);
      return asString(objectOf(response).status) ?? '';
    },
  };
}

/**
 * Pinterest's times: ISO 8601, often without a zone ("2020-01-01T20:10:40"), which is UTC.
 * 0 when absent or unreadable.
 */
export function pinterestTime(value: unknown): number {
  if (typeof value !== 'string' || value === '') return 0;
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value}Z`;
  const time = Date.parse(zoned);
  return Number.isFinite(time) ? time : 0;
}

/**
 * When a throttled call may be made again: Retry-After when sent, else `X-RateLimit-Reset`
 * (seconds until the window resets; a value that large is an epoch time instead), else a minute.
 */
export function pinterestRetryAt(headers: IncomingHttpHeaders, now = Date.now()): Date {
  const reset = header(headers, 'x-ratelimit-reset')?.trim();
  let fallbackMs = PINTEREST_THROTTLE_WAIT_MS;
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset)) {
    const seconds = Number(reset);
    // Past a billion seconds (2001) it can only be an epoch time.
    fallbackMs = seconds > 1e9 ? seconds * 1_000 - now : seconds * 1_000;
  }
  return retryAtFrom(headers, fallbackMs, now);
}

/**
 * `{ code, message }` with the HTTP status: 401 a rejected token (renewed once), 429 a wait,
 * 5xx retryable, other 4xx final. The error code kept is Pinterest's number, as
 * `pinterest_<code>` (`http_<status>` when the body says nothing).
 */
export function pinterestFailure(response: HttpResult, what: string): Error {
  const body = isRecord(response.json) ? response.json : {};
  const pinterestCode = asString(body.code);
  const code = pinterestCode ? `pinterest_${pinterestCode}` : `http_${response.status}`;
  const message = asString(body.message) || excerpt(response.text);
  const detail = `${what}: HTTP ${response.status}${message ? `: ${message}` : ''}`;
  if (response.status === 401) return new TokenRejected(code, detail);
  if (response.status === 429) return throttled(code, detail, pinterestRetryAt(response.headers));
  if (response.status === 403) {
    return fail(
      code,
      `${detail} (the token needs the pins:write and boards:read scopes, and the board must be the user's)`,
      false,
    );
  }
  return fail(code, detail, response.status >= 500 || response.status === 408);
}

/**
 * POST /v5/oauth/token (form) with HTTP Basic client_id:client_secret: the code exchange and the
 * refresh share it. Null when the client id or secret is not set.
 */
export function pinterestTokenEndpoint(config: PinterestSettings, runtime: PublisherRuntime) {
  const { clientId, clientSecret } = config;
  const configured = Boolean(clientId && clientSecret);
  return clientTokenEndpoint(
    runtime,
    `${config.tokenBaseUrl}/v5/oauth/token`,
    {},
    {
      configured,
      headers: configured ? { authorization: basicAuth(clientId ?? '', clientSecret ?? '') } : {},
    },
  );
}

/**
 * grant_type=refresh_token. Pinterest answers a new access token; a new refresh token only when
 * it chooses to rotate (the stored one stays valid otherwise).
 */
export const pinterestRenewal = (
  config: PinterestSettings,
  runtime: PublisherRuntime,
): TokenRenewal | null => refreshGrant(pinterestTokenEndpoint(config, runtime), 'Pinterest');

/** The publisher's renewal on a 401: the same request as the connector's refresh. */
export const pinterestRefresher = (config: PinterestSettings, runtime: PublisherRuntime) =>
  publisherRefresher(pinterestRenewal(config, runtime));
