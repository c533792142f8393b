// The Mastodon REST API of one instance (docs.joinmastodon.org/methods): media
// (POST /api/v2/media, GET /api/v1/media/:id) and statuses (POST /api/v1/statuses), with its
// error answers `{ error, error_description? }` mapped to outcomes: 401 a refused token, 429 a
// wait until X-RateLimit-Reset, 422 a refusal of the status itself, 5xx a retry.
import type { IncomingHttpHeaders } from 'node:http';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { asString, excerpt, type HttpResult, header, isRecord } from '../shared/http.ts';
import { type MediaPart, multipart } from '../shared/multipart.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

const LABEL = 'Mastodon';
/** Without a reset time, a 429 waits Mastodon's shortest window (5 minutes). */
const DEFAULT_WAIT_MS = 5 * 60_000;

/** The status as Mastodon answered it. */
export interface CreatedStatus {
  id: string;
  url: string | null;
}

export interface StatusBody {
  status: string;
  media_ids: string[];
  in_reply_to_id?: string;
  visibility?: string;
}

/** When Mastodon lets the account call again: X-RateLimit-Reset is an ISO 8601 time. */
export function mastodonRetryAt(headers: IncomingHttpHeaders, now = Date.now()): Date {
  const reset = Date.parse(header(headers, 'x-ratelimit-reset') ?? '');
  if (Number.isFinite(reset)) return retryAtFrom(headers, Math.max(0, reset - now), now);
  return retryAtFrom(headers, DEFAULT_WAIT_MS, now);
}

/** A refused call as the outcome it stands for. */
export function mastodonFailure(response: HttpResult, what: string): Error {
  const body = isRecord(response.json) ? response.json : {};
  const error = asString(body.error) ?? (excerpt(response.text) || `HTTP ${response.status}`);
  const description = asString(body.error_description);
  const message = `${what}: ${error}${description ? `: ${description}` : ''}`;
  const status = response.status;
  if (status === 401) return new TokenRejected('invalid_token', message);
  if (status === 429) return throttled('rate_limited', message, mastodonRetryAt(response.headers));
  if (status === 422) return fail('unprocessable', message, false);
  if (status === 403) return fail('forbidden', message, false);
  if (status === 404) return fail('not_found', message, false);
  return fail(`http_${status}`, message, status >= 500 || status === 408);
}

export function createMastodonApi(
  instance: string,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const call = bearerClient(runtime, signal, {
    baseUrl: instance,
    label: LABEL,
    headers: { accept: 'application/json' },
    failure: mastodonFailure,
  });

  const idOf = (response: HttpResult, what: string): Record<string, unknown> & { id: string } => {
    const body = isRecord(response.json) ? response.json : undefined;
    const id = body ? asString(body.id) : undefined;
    if (!body || !id) throw fail('invalid_response', `${LABEL} ${what} gave no id`, true);
    return { ...body, id };
  };

  return {
    /**
     * POST /api/v2/media: 200 when the media is ready, 202 while it is processed (its `url` is
     * null until then).
     */
    async uploadMedia(token: string, file: MediaPart): Promise<{ id: string; ready: boolean }> {
      const response = await call('POST', '/api/v2/media', token, 'media upload', {
        // One `file` field, streamed from the media URL to the instance.
        form: multipart(file, {}, 'file'),
      });
      const media = idOf(response, 'media upload');
      return { id: media.id, ready: response.status === 200 && media.url != null };
    },

    /** GET /api/v1/media/:id: ready once `url` is set (206 while processing). */
    async mediaReady(token: string, id: string): Promise<boolean> {
      const response = await call(
        'GET',
        `/api/v1/media/${encodeURIComponent(id)}`,
        token,
        'media status',
      );
      const media = idOf(response, 'media status');
      return response.status === 200 && typeof media.url === 'string' && media.url !== '';
    },

    /**
     * POST /api/v1/statuses with an Idempotency-Key: the instance answers a repeat of the key
     * (within an hour) with the status made the first time, never a second one.
     */
    async createStatus(
      token: string,
      status: StatusBody,
      idempotencyKey: string,
    ): Promise<CreatedStatus> {
      const response = await call('POST', '/api/v1/statuses', token, 'status', {
        json: status,
        headers: { 'idempotency-key': idempotencyKey },
      });
      const created = idOf(response, 'status');
      return { id: created.id, url: asString(created.url) ?? asString(created.uri) ?? null };
    },
  };
}
