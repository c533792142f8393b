// The posting half of the fake X API v2: POST /2/tweets, the author's timeline, image upload
// and chunked video upload (initialize / append / finalize / STATUS) with slow processing, the
// per-user post limit with x-rate-limit-* headers, and X's duplicate-content refusal.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { sendJson } from './http.ts';
import { parseMultipart } from './multipart.ts';

const twitterText = createRequire(import.meta.url)('twitter-text') as typeof import('twitter-text');

export interface XTweet {
  id: string;
  authorId: string;
  text: string;
  mediaIds: string[];
  replyTo: string | null;
  createdAt: Date;
}

export interface XMedia {
  id: string;
  kind: 'image' | 'video';
  mediaType: string;
  totalBytes: number;
  /** Bytes received per segment index (videos). */
  segments: Map<number, number>;
  finalized: boolean;
  /** STATUS calls still answering in_progress. */
  pollsLeft: number;
  failed: string | null;
}

export interface XPostingOptions {
  /** Posts one user may create per window (X: 100 per 15 min). Past it: 429 with headers. */
  postLimit?: { limit: number; windowMs: number };
  /** STATUS answers in_progress this many times after finalize (default 1). */
  videoProcessingPolls?: number;
  /** check_after_secs in processing_info (default 0, so tests poll at their own pace). */
  checkAfterSecs?: number;
}

const problem = (status: number, title: string, detail: string) => ({
  title,
  detail,
  type: 'about:blank',
  status,
});

export function createXPosting(options: XPostingOptions, userId: () => string) {
  const tweets: XTweet[] = [];
  const media = new Map<string, XMedia>();
  const windows = new Map<string, { started: number; count: number }>();
  let sequence = 0;
  const nextId = () => {
    sequence += 1;
    return String(1_860_000_000_000_000_000n + BigInt(sequence));
  };
  const checkAfter = options.checkAfterSecs ?? 0;

  function processingInfo(item: XMedia) {
    if (item.kind === 'image' || !item.finalized) return undefined;
    if (item.failed) {
      return { state: 'failed', error: { code: 1, name: 'InvalidMedia', message: item.failed } };
    }
    if (item.pollsLeft > 0) {
      return { state: 'in_progress', check_after_secs: checkAfter, progress_percent: 50 };
    }
    return { state: 'succeeded', progress_percent: 100 };
  }

  const mediaData = (item: XMedia) => ({
    id: item.id,
    media_key: `${item.kind === 'image' ? 3 : 7}_${item.id}`,
    size: item.totalBytes,
    expires_after_secs: 86_400,
    ...(processingInfo(item) ? { processing_info: processingInfo(item) } : {}),
  });

  /** The user's post limit: true when it answered 429. */
  function limited(response: ServerResponse, user: string): boolean {
    const limit = options.postLimit;
    if (!limit) return false;
    const now = Date.now();
    let window = windows.get(user);
    if (!window || now - window.started >= limit.windowMs) {
      window = { started: now, count: 0 };
      windows.set(user, window);
    }
    const reset = Math.ceil((window.started + limit.windowMs) / 1000);
    const headers = {
      'x-rate-limit-limit': String(limit.limit),
      'x-rate-limit-remaining': String(Math.max(0, limit.limit - window.count - 1)),
      'x-rate-limit-reset': String(reset),
    };
    if (window.count >= limit.limit) {
      sendJson(response, 429, problem(429, 'Too Many Requests', 'Too Many Requests'), {
        ...headers,
        'x-rate-limit-remaining': '0',
      });
      return true;
    }
    window.count += 1;
    response.setHeader('x-rate-limit-limit', headers['x-rate-limit-limit']);
    response.setHeader('x-rate-limit-remaining', headers['x-rate-limit-remaining']);
    response.setHeader('x-rate-limit-reset', headers['x-rate-limit-reset']);
    return false;
  }

  function createTweet(response: ServerResponse, body: unknown) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    const text = typeof input.text === 'string' ? input.text : '';
    const mediaIds = Array.isArray((input.media as { media_ids?: unknown })?.media_ids)
      ? ((input.media as { media_ids: unknown[] }).media_ids.map(String) as string[])
      : [];
    const replyTo = (input.reply as { in_reply_to_tweet_id?: unknown } | undefined)
      ?.in_reply_to_tweet_id;
    if (text === '' && mediaIds.length === 0) {
      return sendJson(
        response,
        400,
        problem(400, 'Invalid Request', 'One or more parameters to your request was invalid.'),
      );
    }
    if (!twitterText.parseTweet(text).valid && text !== '') {
      return sendJson(
        response,
        400,
        problem(400, 'Invalid Request', 'Your Tweet text is too long.'),
      );
    }
    for (const id of mediaIds) {
      const item = media.get(id);
      if (
        !item ||
        (item.kind === 'video' && (!item.finalized || item.pollsLeft > 0 || item.failed))
      ) {
        return sendJson(
          response,
          400,
          problem(400, 'Invalid Request', 'Your media IDs are invalid.'),
        );
      }
    }
    if (replyTo !== undefined && !tweets.some((tweet) => tweet.id === String(replyTo))) {
      return sendJson(
        response,
        403,
        problem(
          403,
          'Forbidden',
          'You attempted to reply to a Tweet that is deleted or not visible to you.',
        ),
      );
    }
    const user = userId();
    if (tweets.some((tweet) => tweet.authorId === user && tweet.text === text && text !== '')) {
      return sendJson(
        response,
        403,
        problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.'),
      );
    }
    if (limited(response, user)) return;
    const tweet: XTweet = {
      id: nextId(),
      authorId: user,
      text,
      mediaIds,
      replyTo: replyTo === undefined ? null : String(replyTo),
      createdAt: new Date(),
    };
    tweets.push(tweet);
    sendJson(response, 201, { data: { id: tweet.id, text, edit_history_tweet_ids: [tweet.id] } });
  }

  function timeline(response: ServerResponse, id: string) {
    const data = tweets
      .filter((tweet) => tweet.authorId === id)
      .slice()
      .reverse()
      .slice(0, 20)
      .map((tweet) => ({
        id: tweet.id,
        text: tweet.text,
        created_at: tweet.createdAt.toISOString(),
      }));
    sendJson(
      response,
      200,
      data.length > 0
        ? { data, meta: { result_count: data.length } }
        : { meta: { result_count: 0 } },
    );
  }

  function uploadImage(response: ServerResponse, raw: Buffer, contentType: string | undefined) {
    const fields = parseMultipart(raw, contentType);
    const file = fields.find((field) => field.name === 'media');
    const category = fields.find((field) => field.name === 'media_category')?.data.toString();
    if (!file || file.data.length === 0) {
      return sendJson(response, 400, problem(400, 'Invalid Request', 'media is required'));
    }
    if (category !== 'tweet_image') {
      return sendJson(
        response,
        400,
        problem(400, 'Invalid Request', `media_category ${category} is not tweet_image`),
      );
    }
    const item: XMedia = {
      id: nextId(),
      kind: 'image',
      mediaType: file.contentType ?? 'image/jpeg',
      totalBytes: file.data.length,
      segments: new Map([[0, file.data.length]]),
      finalized: true,
      pollsLeft: 0,
      failed: null,
    };
    media.set(item.id, item);
    sendJson(response, 200, {
      data: { ...mediaData(item), image: { image_type: item.mediaType } },
    });
  }

  function initialize(response: ServerResponse, body: unknown) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    if (typeof input.total_bytes !== 'number' || input.media_category !== 'tweet_video') {
      return sendJson(
        response,
        400,
        problem(400, 'Invalid Request', 'total_bytes and media_category=tweet_video are required'),
      );
    }
    const item: XMedia = {
      id: nextId(),
      kind: 'video',
      mediaType: String(input.media_type ?? 'video/mp4'),
      totalBytes: input.total_bytes,
      segments: new Map(),
      finalized: false,
      pollsLeft: options.videoProcessingPolls ?? 1,
      failed: null,
    };
    media.set(item.id, item);
    sendJson(response, 200, { data: mediaData(item) });
  }

  function append(
    response: ServerResponse,
    item: XMedia,
    raw: Buffer,
    contentType: string | undefined,
  ) {
    const fields = parseMultipart(raw, contentType);
    const file = fields.find((field) => field.name === 'media');
    const index = Number(fields.find((field) => field.name === 'segment_index')?.data.toString());
    if (!file || !Number.isInteger(index) || index < 0 || index > 999) {
      return sendJson(
        response,
        400,
        problem(400, 'Invalid Request', 'media and segment_index are required'),
      );
    }
    item.segments.set(index, file.data.length);
    sendJson(response, 200, { data: { expires_at: Math.floor(Date.now() / 1000) + 86_400 } });
  }

  function finalize(response: ServerResponse, item: XMedia) {
    const received = [...item.segments.values()].reduce((sum, bytes) => sum + bytes, 0);
    if (received !== item.totalBytes) {
      return sendJson(
        response,
        400,
        problem(
          400,
          'Invalid Request',
          `File size mismatch: received ${received} of ${item.totalBytes} bytes.`,
        ),
      );
    }
    item.finalized = true;
    sendJson(response, 200, { data: mediaData(item) });
  }

  function status(response: ServerResponse, item: XMedia) {
    if (item.pollsLeft > 0) {
      const data = mediaData(item);
      item.pollsLeft -= 1;
      return sendJson(response, 200, { data });
    }
    sendJson(response, 200, { data: mediaData(item) });
  }

  /** Serves a posting route; false when `url` is not one. */
  function handle(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    raw: Buffer,
    body: unknown,
  ): boolean {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    const contentType = request.headers['content-type'];
    const timelineUser = /^\/2\/users\/([^/]+)\/tweets$/.exec(path)?.[1];
    const step = /^\/2\/media\/upload\/([^/]+)\/(append|finalize)$/.exec(path);
    const stepMedia = step ? media.get(decodeURIComponent(step[1] ?? '')) : undefined;
    const statusOf =
      path === '/2/media/upload' && method === 'GET' && url.searchParams.get('command') === 'STATUS'
        ? media.get(url.searchParams.get('media_id') ?? '')
        : undefined;
    const route = (): (() => void) | undefined => {
      if (path === '/2/tweets' && method === 'POST') return () => createTweet(response, body);
      if (timelineUser && method === 'GET') {
        return () => timeline(response, decodeURIComponent(timelineUser));
      }
      if (path === '/2/media/upload' && method === 'POST') {
        return () => uploadImage(response, raw, contentType);
      }
      if (path === '/2/media/upload/initialize' && method === 'POST') {
        return () => initialize(response, body);
      }
      if (statusOf) return () => status(response, statusOf);
      if (step && method === 'POST') {
        if (!stepMedia)
          return () => sendJson(response, 404, problem(404, 'Not Found Error', 'no such media'));
        return step[2] === 'append'
          ? () => append(response, stepMedia, raw, contentType)
          : () => finalize(response, stepMedia);
      }
      return undefined;
    };
    const serve = route();
    if (!serve) return false;
    serve();
    return true;
  }

  return { tweets, media, handle };
}
