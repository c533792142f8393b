import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  PlatformPublisher,
  PublishIntent,
  PublishOutcome,
  PublishRequest,
  ThreadPart,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { afterMainPost } from '../shared/follow-ups.ts';
import { findSent, intentAt, sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { publisherRefresher } from '../shared/oauth.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { createXApi, type MediaProcessing } from './api.ts';
import { xRenewal } from './oauth.ts';
import { freshProgress, noteExpiry, readProgress, type XProgress } from './progress.ts';
import type { TwitterSettings } from './settings.ts';
import { comparableText } from './text.ts';
import { validateTwitter } from './validate.ts';

const LABEL = 'X';
/** The intent step of POST /2/tweets. */
const CREATE_TWEET = 'create_tweet';
/** The intent step of follow-up n (`thread_0`, ...): each looked for on its own. */
const FOLLOW_UP = 'thread_';
/** X takes images up to 5 MB in one request (streamed from the media URL, not held). */
export const X_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Video segments: each read from the media URL by range and streamed into its append. */
export const X_SEGMENT_BYTES = 4 * 1024 * 1024;

export function createTwitterPublisher(
  config: TwitterSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = publisherRefresher(xRenewal(config, runtime));

  async function run(request: PublishRequest, stored: XProgress | null): Promise<PublishOutcome> {
    const auth = new AuthSession(request, refresher, LABEL);
    const api = createXApi(config, runtime, request.signal);
    const media = createMediaFetcher(runtime, request.signal);
    const urls = request.post.mediaUrls;
    const progress: XProgress = stored ?? freshProgress(urls.length);
    const save = () => request.saveProgress(structuredClone(progress) as never);
    const text = request.post.content;

    const tweetId = progress.tweetId ?? (await postMain());
    const thread = request.post.thread;
    if (thread.length === 0) return publishedAs(tweetId);
    if (progress.tweetId === null) {
      progress.tweetId = tweetId;
      await save();
    }
    const soFar = () => ({ ...publishedAs(tweetId), threadPostIds: [...progress.threadIds] });
    return afterMainPost(request.signal, soFar, async () => {
      for (let index = progress.threadIds.length; index < thread.length; index++) {
        const part = thread[index] as ThreadPart;
        const previous = progress.threadIds[index - 1] ?? tweetId;
        progress.threadIds.push(await postFollowUp(part, `${FOLLOW_UP}${index}`, previous));
        await save();
      }
      return { ...publishedAs(tweetId), threadPostIds: [...progress.threadIds] };
    });

    /** A follow-up, a reply to `previous`: looked for first when an earlier run sent it. */
    async function postFollowUp(part: ThreadPart, step: string, previous: string) {
      const sentBefore = intentAt(request, step);
      if (sentBefore !== null) {
        const found = await findSentTweet(sentBefore, part.content, part.mediaUrls.length > 0);
        if (found !== undefined) return found;
      }
      const mediaIds: string[] = [];
      for (const url of part.mediaUrls) mediaIds.push((await sendImage(url)).id);
      const tweet = {
        text: part.content,
        ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
        reply: { in_reply_to_tweet_id: previous },
      };
      return sendOnce(request, step, () => auth.call((token) => api.createTweet(token, tweet)));
    }

    /** The main post: its media, then POST /2/tweets under an intent. */
    async function postMain(): Promise<string> {
      // An earlier run sent the post and stopped before recording X's answer: look for it.
      const sentBefore = intentAt(request, CREATE_TWEET);
      if (sentBefore !== null) {
        const found = await findSentTweet(sentBefore, text, urls.length > 0);
        if (found !== undefined) return found;
      }

      const mediaIds: string[] = [];
      if (urls.some((url) => mediaKindOf(url) === 'video')) {
        const url = urls[0];
        if (url === undefined || urls.length > 1) {
          throw fail('invalid_params', 'X takes one video per post, without photos', false);
        }
        mediaIds.push(await uploadVideo(url));
      } else {
        for (const [index, url] of urls.entries()) mediaIds.push(await uploadImage(url, index));
      }

      const replyTo = replyOf(request);
      const tweet: Record<string, unknown> = {
        text,
        ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
        ...(replyTo ? { reply: { in_reply_to_tweet_id: replyTo } } : {}),
      };
      await request.beforeCountedCall();
      return sendOnce(request, CREATE_TWEET, () =>
        auth.call((token) => api.createTweet(token, tweet)),
      );
    }

    /**
     * The post an earlier run sent, among the author's latest (the user id is the connection's
     * externalId, from /2/users/me): the same text as X shows it back (see comparableText),
     * created after its intent. Sending again is only safe when X can be asked: when it refuses
     * the lookup for good the outcome stays unknown. X down, a wait (429) or an expired
     * connection end this run as such: the intent stays, the next run looks again.
     */
    async function findSentTweet(
      intent: PublishIntent,
      text: string,
      withMedia: boolean,
    ): Promise<string | undefined> {
      const wanted = comparableText(text);
      const match = await findSent({
        label: LABEL,
        intent,
        read: (since) =>
          auth.call((token) => api.recentTweets(token, request.connection.externalId, since)),
        same: (candidate) => comparableText(candidate.text, withMedia) === wanted,
        pick: 'newest',
      });
      return match?.id;
    }

    async function uploadImage(url: string, index: number): Promise<string> {
      const done = progress.images[index];
      if (done) return done;
      const uploaded = await sendImage(url);
      progress.images[index] = uploaded.id;
      noteExpiry(progress, uploaded.expiresAt);
      await save();
      return uploaded.id;
    }

    /** One image, streamed from its URL (a follow-up's are not kept: uploading posts nothing). */
    function sendImage(url: string) {
      // Fetched again for a retried call (a refreshed token): a stream is read once.
      return auth.call(async (token) => {
        const image = await media.whole(url);
        try {
          if (image.length !== undefined && image.length > X_MAX_IMAGE_BYTES) throw tooLarge(url);
          const body = image.body.pipe(atMost(X_MAX_IMAGE_BYTES, url));
          image.body.on('error', (error) => body.destroy(error));
          return await api.uploadImage(token, { ...image, body });
        } finally {
          discard(image.body);
        }
      });
    }

    /**
     * X says when to look at a processing video again (check_after_secs): asking sooner only
     * spends requests of the 15-minute window. Never past the polling deadline, where pollUntil
     * gives up.
     */
    async function waitAsAsked(checkAfterSecs: number | null, startedAt: number, alreadyMs = 0) {
      const wantedMs = (checkAfterSecs ?? 0) * 1000 - alreadyMs;
      const leftMs = startedAt + runtime.pollTimeoutMs - Date.now();
      const waitMs = Math.min(wantedMs, leftMs);
      if (waitMs > 0) await sleep(waitMs, undefined, { signal: request.signal });
    }

    /** initialize, each segment by range (resumable), finalize, then processing. */
    async function uploadVideo(url: string): Promise<string> {
      let video = progress.video;
      if (video === null) {
        const info = await media.probe(url);
        const type = info.contentType.startsWith('video/') ? info.contentType : 'video/mp4';
        const uploaded = await auth.call((token) =>
          api.initializeVideo(token, info.totalBytes, type),
        );
        video = {
          mediaId: uploaded.id,
          totalBytes: info.totalBytes,
          segmentsDone: 0,
          finalized: false,
          pollStartedAt: null,
        };
        progress.video = video;
        noteExpiry(progress, uploaded.expiresAt);
        await save();
      }
      const current = video;
      const segments = Math.ceil(current.totalBytes / X_SEGMENT_BYTES);
      if (!current.finalized) {
        for (let index = current.segmentsDone; index < segments; index++) {
          const first = index * X_SEGMENT_BYTES;
          const last = Math.min(current.totalBytes, first + X_SEGMENT_BYTES) - 1;
          await auth.call(async (token) => {
            const part = await media.range(url, first, last, current.totalBytes);
            try {
              return await api.appendSegment(token, current.mediaId, index, part);
            } finally {
              discard(part.body);
            }
          });
          current.segmentsDone = index + 1;
          await save();
        }
        const processing = await auth.call((token) => api.finalizeVideo(token, current.mediaId));
        current.finalized = true;
        current.pollStartedAt = Date.now();
        await save();
        if (processing.state === 'none' || processing.state === 'succeeded') return current.mediaId;
        if (processing.state === 'failed') throw processingFailed(current.mediaId, processing);
        await waitAsAsked(processing.checkAfterSecs, current.pollStartedAt);
      }
      const startedAt = current.pollStartedAt ?? Date.now();
      await pollUntil<true>({
        intervalMs: runtime.pollIntervalMs,
        timeoutMs: runtime.pollTimeoutMs,
        startedAt,
        signal: request.signal,
        what: `X video ${current.mediaId}`,
        check: async () => {
          const status = await auth.call((token) => api.mediaStatus(token, current.mediaId));
          if (status.state === 'succeeded' || status.state === 'none') return true;
          if (status.state === 'failed') throw processingFailed(current.mediaId, status);
          // pending, in_progress: pollUntil waits its own interval on top of this.
          await waitAsAsked(status.checkAfterSecs, startedAt, runtime.pollIntervalMs);
          return undefined;
        },
      });
      return current.mediaId;
    }
  }

  return progressPublisher({ platform: 'twitter', validate: validateTwitter, readProgress, run });
}

const processingFailed = (mediaId: string, status: MediaProcessing) =>
  fail(
    'video_processing_failed',
    `X could not process video ${mediaId}: ${status.error ?? 'failed'}`,
    false,
  );

const publishedAs = (id: string) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: `https://x.com/i/web/status/${id}`,
  }) satisfies PublishOutcome;

function replyOf(request: PublishRequest): string | undefined {
  const own = request.post.platformOptions.twitter;
  const reply =
    own && typeof own === 'object' ? (own as Record<string, unknown>).replyToTweetId : undefined;
  return typeof reply === 'string' && reply !== '' ? reply : undefined;
}

const tooLarge = (url: string) =>
  fail(
    'media_too_large',
    `media ${url} is larger than ${X_MAX_IMAGE_BYTES} bytes, X's limit`,
    false,
  );

/** Passes the bytes through, failing the upload past `max` (a server that did not say). */
function atMost(max: number, url: string): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > max ? tooLarge(url) : null, size > max ? undefined : chunk);
    },
  });
}
