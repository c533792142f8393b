// X API v2 wire calls for posting (docs/platforms.md#x; docs.x.com "Manage Posts",
// "Media upload"): POST /2/tweets, the media upload endpoints, and the author's recent posts.

import type { IncomingHttpHeaders } from 'node:http';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { asString, excerpt, type HttpResult, isRecord } from '../shared/http.ts';
import { type MediaPart, multipart } from '../shared/multipart.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { TwitterSettings } from './settings.ts';

/** X's windows are 15 minutes; a 429 without x-rate-limit-reset waits one. */
export const X_THROTTLE_WAIT_MS = 15 * 60_000;

export interface RecentTweet {
  id: string;
  text: string;
  createdAt: number;
}

/** What STATUS (or FINALIZE) says of a media being processed. */
export interface MediaProcessing {
  state: 'pending' | 'in_progress' | 'succeeded' | 'failed' | 'none';
  checkAfterSecs: number | null;
  error: string | null;
}

export function createXApi(
  config: TwitterSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  // A multipart form (an image, a media segment of a few MiB) gets the upload timeout.
  const call = bearerClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    label: 'X',
    failure: xFailure,
  });

  const dataOf = (response: HttpResult, what: string): Record<string, unknown> => {
    const data = isRecord(response.json) ? response.json.data : undefined;
    if (!isRecord(data)) throw fail('invalid_response', `X ${what} gave no data`, true);
    return data;
  };

  return {
    /** POST /2/tweets -> the new post's id. */
    async createTweet(token: string, tweet: Record<string, unknown>): Promise<string> {
      const response = await call('POST', '/2/tweets', token, 'post', { json: tweet });
      const id = asString(dataOf(response, 'post').id);
      if (!id) throw fail('invalid_response', 'X post gave no id', false);
      return id;
    },

    /**
     * The author's posts created since `since` (ms), newest first (GET /2/users/:id/tweets with
     * start_time, second granularity, inclusive): 100, X's most per page and its per-user post
     * limit per 15 minutes, so a post sent a moment ago is on this page.
     */
    async recentTweets(token: string, userId: string, since: number): Promise<RecentTweet[]> {
      const startTime = new Date(Math.floor(since / 1000) * 1000)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z');
      const query = new URLSearchParams({
        max_results: '100',
        start_time: startTime,
        'tweet.fields': 'created_at,text',
        exclude: 'retweets',
      });
      const response = await call(
        'GET',
        `/2/users/${encodeURIComponent(userId)}/tweets?${query}`,
        token,
        'recent posts',
      );
      const data = isRecord(response.json) ? response.json.data : undefined;
      if (!Array.isArray(data)) return []; // no posts at all: X leaves `data` out
      return data.filter(isRecord).map((tweet) => ({
        id: asString(tweet.id) ?? '',
        text: asString(tweet.text) ?? '',
        createdAt: Date.parse(asString(tweet.created_at) ?? '') || 0,
      }));
    },

    /**
     * DELETE /2/tweets/:id. X answers `{ data: { deleted: true } }`; for a post that is gone
     * already `deleted: false` (or 404): both mean it is not there any more.
     */
    async deleteTweet(token: string, id: string): Promise<void> {
      const path = `/2/tweets/${encodeURIComponent(id)}`;
      try {
        await call('DELETE', path, token, 'post delete', {
          failure: (response, what) =>
            response.status === 404 ? new PostGone() : xFailure(response, what),
        });
      } catch (error) {
        if (!(error instanceof PostGone)) throw error;
      }
    },

    /** One image in one request (POST /2/media/upload, multipart) -> its media id. */
    async uploadImage(token: string, image: MediaPart): Promise<UploadedMedia> {
      const form = multipart(image, { media_category: 'tweet_image' });
      const response = await call('POST', '/2/media/upload', token, 'image upload', { form });
      return uploadedMedia(dataOf(response, 'image upload'), 'image upload');
    },

    /** POST /2/media/upload/initialize -> the video's media id. */
    async initializeVideo(
      token: string,
      totalBytes: number,
      mediaType: string,
    ): Promise<UploadedMedia> {
      const json = {
        media_type: mediaType,
        total_bytes: totalBytes,
        media_category: 'tweet_video',
      };
      const response = await call('POST', '/2/media/upload/initialize', token, 'video initialize', {
        json,
      });
      return uploadedMedia(dataOf(response, 'video initialize'), 'video initialize');
    },

    /** POST /2/media/upload/:id/append: one segment (multipart `media`, `segment_index`). */
    async appendSegment(
      token: string,
      mediaId: string,
      index: number,
      segment: MediaPart,
    ): Promise<void> {
      const form = multipart(segment, { segment_index: String(index) });
      const path = `/2/media/upload/${encodeURIComponent(mediaId)}/append`;
      await call('POST', path, token, `video segment ${index}`, { form });
    },

    /** POST /2/media/upload/:id/finalize -> whether (and how) processing goes on. */
    async finalizeVideo(token: string, mediaId: string): Promise<MediaProcessing> {
      const path = `/2/media/upload/${encodeURIComponent(mediaId)}/finalize`;
      const response = await call('POST', path, token, 'video finalize');
      return processingOf(dataOf(response, 'video finalize'));
    },

    /** GET /2/media/upload?command=STATUS&media_id=… */
    async mediaStatus(token: string, mediaId: string): Promise<MediaProcessing> {
      const path = `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}`;
      const response = await call('GET', path, token, 'video status');
      return processingOf(dataOf(response, 'video status'));
    },
  };
}

/** A delete answered 404: the post is not there (any more). */
class PostGone extends Error {}

/** A media id and when X forgets it (`expires_after_secs`; null when X does not say). */
export interface UploadedMedia {
  id: string;
  expiresAt: number | null;
}

function uploadedMedia(data: Record<string, unknown>, what: string): UploadedMedia {
  const id = asString(data.id);
  if (!id) throw fail('invalid_response', `X ${what} gave no media id`, true);
  const ttl = data.expires_after_secs;
  return { id, expiresAt: typeof ttl === 'number' ? Date.now() + ttl * 1000 : null };
}

function processingOf(data: Record<string, unknown>): MediaProcessing {
  const info = isRecord(data.processing_info) ? data.processing_info : null;
  if (!info) return { state: 'none', checkAfterSecs: null, error: null };
  const state = asString(info.state);
  const error = isRecord(info.error)
    ? (asString(info.error.message) ?? asString(info.error.name) ?? 'processing failed')
    : null;
  return {
    state:
      state === 'pending' || state === 'in_progress' || state === 'succeeded' || state === 'failed'
        ? state
        : 'in_progress',
    checkAfterSecs: typeof info.check_after_secs === 'number' ? info.check_after_secs : null,
    error,
  };
}

/**
 * X's problem answers: `{ title, detail, type, status }` or `{ errors: [{ message }], title }`.
 * 401: the token (refreshed once by AuthSession). 403: a refusal (duplicate content, a reply
 * not allowed, a suspended account...). 429: wait until x-rate-limit-reset. 5xx: retry.
 */
export function xFailure(response: HttpResult, what: string): Error {
  const message = `${what}: ${problemMessage(response)}`;
  const { status } = response;
  if (status === 401) return new TokenRejected('unauthorized', message);
  if (status === 429) return rateLimited(response.headers, message);
  if (status === 403 && /duplicate/i.test(message)) {
    return fail('duplicate_content', message, false);
  }
  if (status === 403) return fail('forbidden', message, false);
  if (status === 400) return fail('invalid_request', message, false);
  if (status === 404) return fail('not_found', message, false);
  return fail(`http_${status}`, message, status >= 500 || status === 408);
}

function rateLimited(headers: IncomingHttpHeaders, message: string): Error {
  return throttled('rate_limit_exceeded', message, retryAtFrom(headers, X_THROTTLE_WAIT_MS));
}

function problemMessage(response: HttpResult): string {
  const body = response.json;
  if (!isRecord(body)) return `HTTP ${response.status} ${excerpt(response.text)}`.trim();
  const first = Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : null;
  const text =
    asString(body.detail) ??
    asString(first?.message) ??
    asString(first?.detail) ??
    asString(body.title);
  return text ?? `HTTP ${response.status} ${excerpt(response.text)}`.trim();
}
