// The posting half of the fake X API v2: POST /2/tweets, the author's timeline, image upload
// and chunked video upload (initialize / append / finalize / STATUS) with slow processing, the
// per-user post limit with x-rate-limit-* headers, and X's duplicate-content refusal. Text comes
// back as X shows it: links as t.co links, `&<>` HTML-escaped, a t.co link to attached media.

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
  /** The text as X gives it back (t.co links, HTML-escaped, media link at the end). */
  shown: string;
}

export interface XMedia {
  id: string;
  kind: 'image' | 'video';
  mediaType: string;
  totalBytes: number;
  /** Bytes received per segment index (videos). */
  segments: Map<number, number>;
  finalized: boolean;
  /** STATUS calls still answering in progress (pending before the first, in_progress after). */
  pollsLeft: number;
  /** STATUS calls answered. */
  statusCalls: number;
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

/** X's window of a user's timeline: at most this many posts, 5 at least per page. */
const TIMELINE_MAX_RESULTS = 100;
/** start_time as X documents it: YYYY-MM-DDTHH:mm:ssZ. */
const START_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

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
  /** Why the next video initialized will fail processing (failNextVideo). */
  let nextVideoFailure: string | null = null;
  let links = 0;
  const shortLink = () => `https://t.co/${(++links).toString(36).padStart(10, 'a')}`;

  /**
   * The text as X gives it back: every link (as twitter-text finds them) a t.co link, `&`, `<`
   * and `>` HTML-escaped, and a t.co link to the media at the end when there is some.
   */
  function shownText(posted: string, withMedia: boolean): string {
    let text = posted;
    const urls = twitterText.extractUrlsWithIndices(text);
    for (const { indices } of [...urls].reverse()) {
      text = `${text.slice(0, indices[0])}\u{FFFC}${text.slice(indices[1])}`;
    }
    text = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    text = text.replace(/\u{FFFC}/gu, () => shortLink());
    return withMedia ? `${text} ${shortLink()}`.trim() : text;
  }

  function processingInfo(item: XMedia) {
    if (item.kind === 'image' || !item.finalized) return undefined;
    if (item.pollsLeft > 0) {
      return item.statusCalls === 0
        ? { state: 'pending', check_after_secs: checkAfter }
        : { state: 'in_progress', check_after_secs: checkAfter, progress_percent: 50 };
    }
    if (item.failed) {
      return { state: 'failed', error: { code: 1, name: 'InvalidMedia', message: item.failed } };
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
      shown: shownText(text, mediaIds.length > 0),
    };
    tweets.push(tweet);
    sendJson(response, 201, {
      data: { id: tweet.id, text: tweet.shown, edit_history_tweet_ids: [tweet.id] },
    });
  }

  /** Newest first; `max_results` 5..100 (default 10) and `start_time` as X checks them. */
  function timeline(response: ServerResponse, id: string, query: URLSearchParams) {
    const max = Number(query.get('max_results') ?? 10);
    const start = query.get('start_time');
    const invalid = (detail: string) =>
      sendJson(response, 400, {
        errors: [{ parameters: {}, message: detail }],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      });
    if (!Number.isInteger(max) || max < 5 || max > TIMELINE_MAX_RESULTS) {
      return invalid(`The \`max_results\` query parameter value [${max}] is not between 5 and 100`);
    }
    if (start !== null && !START_TIME.test(start)) {
      return invalid(`Invalid value for \`start_time\`: ${start}`);
    }
    // start_time has second granularity and is inclusive.
    const from = start === null ? 0 : Date.parse(start);
    const data = tweets
      .filter((tweet) => tweet.authorId === id && tweet.createdAt.getTime() >= from)
      .slice()
      .reverse()
      .slice(0, max)
      .map((tweet) => ({
        id: tweet.id,
        text: tweet.shown,
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
      statusCalls: 0,
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
      statusCalls: 0,
      failed: nextVideoFailure,
    };
    nextVideoFailure = null;
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
    if (item.finalized) item.statusCalls += 1;
    const data = mediaData(item);
    if (item.finalized && item.pollsLeft > 0) item.pollsLeft -= 1;
    sendJson(response, 200, { data });
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
        return () => timeline(response, decodeURIComponent(timelineUser), url.searchParams);
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

  /** The next video initialized fails processing with this message (after its polls). */
  const failNextVideo = (message: string) => {
    nextVideoFailure = message;
  };

  return { tweets, media, handle, failNextVideo };
}
