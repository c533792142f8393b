import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { afterMainPost, type ThreadPart } from '../shared/follow-ups.ts';
import { findSent, intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { publisherRefresher } from '../shared/oauth.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { xRenewal } from './oauth.ts';
import { readProgress, type XProgress } from './progress.ts';
import { LABEL, startRun, type XRun } from './run.ts';
import type { TwitterSettings } from './settings.ts';
import { comparableText } from './text.ts';
import { sendImage, uploadMedia } from './upload.ts';
import { validateTwitter } from './validate.ts';

/** The intent step of POST /2/tweets. */
const CREATE_TWEET = 'create_tweet';
/** The intent step of follow-up n (`thread_0`, ...): each looked for on its own. */
const FOLLOW_UP = 'thread_';

export function createTwitterPublisher(
  config: TwitterSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = publisherRefresher(xRenewal(config, runtime));
  const run = (request: PublishRequest, stored: XProgress | null) =>
    publish(startRun(config, runtime, refresher, request, stored));
  return progressPublisher({ platform: 'twitter', validate: validateTwitter, readProgress, run });
}

/** The main post (once), then each follow-up of its thread in order, each stored as it goes. */
async function publish(run: XRun): Promise<PublishOutcome> {
  const { request, progress } = run;
  const tweetId = progress.tweetId ?? (await postMain(run));
  const thread = request.post.thread;
  if (thread.length === 0) return publishedAs(tweetId);
  if (progress.tweetId === null) {
    progress.tweetId = tweetId;
    await run.save();
  }
  const soFar = () => ({ ...publishedAs(tweetId), threadPostIds: [...progress.threadIds] });
  return afterMainPost(request.signal, soFar, async () => {
    for (let index = progress.threadIds.length; index < thread.length; index++) {
      const part = thread[index] as ThreadPart;
      const previous = progress.threadIds[index - 1] ?? tweetId;
      progress.threadIds.push(await postFollowUp(run, part, `${FOLLOW_UP}${index}`, previous));
      await run.save();
    }
    return soFar();
  });
}

/** The main post: its media, then POST /2/tweets under an intent. */
async function postMain(run: XRun): Promise<string> {
  const { request, auth, api } = run;
  const text = request.post.content;
  const urls = request.post.mediaUrls;
  // An earlier run sent the post and stopped before recording X's answer: look for it.
  const sentBefore = intentAt(request, CREATE_TWEET);
  if (sentBefore !== null) {
    const found = await findSentTweet(run, sentBefore, text, urls.length > 0);
    if (found !== undefined) return found;
  }
  const mediaIds = await uploadMedia(run, urls);
  const replyTo = replyOf(request);
  const tweet: Record<string, unknown> = {
    text,
    ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
    ...(replyTo ? { reply: { in_reply_to_tweet_id: replyTo } } : {}),
  };
  await request.beforeCountedCall();
  return sendOnce(request, CREATE_TWEET, () => auth.call((token) => api.createTweet(token, tweet)));
}

/** A follow-up, a reply to `previous`: looked for first when an earlier run sent it. */
async function postFollowUp(run: XRun, part: ThreadPart, step: string, previous: string) {
  const { request, auth, api } = run;
  const sentBefore = intentAt(request, step);
  if (sentBefore !== null) {
    const found = await findSentTweet(run, sentBefore, part.content, part.mediaUrls.length > 0);
    if (found !== undefined) return found;
  }
  const mediaIds: string[] = [];
  for (const url of part.mediaUrls) mediaIds.push((await sendImage(run, url)).id);
  const tweet = {
    text: part.content,
    ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
    reply: { in_reply_to_tweet_id: previous },
  };
  return sendOnce(request, step, () => auth.call((token) => api.createTweet(token, tweet)));
}

/**
 * The post an earlier run sent, among the author's latest (the user id is the connection's
 * externalId, from /2/users/me): the same text as X shows it back (see comparableText),
 * created after its intent. Sending again is only safe when X can be asked: when it refuses
 * the lookup for good the outcome stays unknown. X down, a wait (429) or an expired
 * connection end this run as such: the intent stays, the next run looks again.
 */
async function findSentTweet(
  run: XRun,
  intent: PublishIntent,
  text: string,
  withMedia: boolean,
): Promise<string | undefined> {
  const { request, auth, api } = run;
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
