import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeX,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeX,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeX;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeX({}), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = (requestTimeoutMs?: number) =>
  publisherFor(
    'twitter',
    testConfig({
      twitter: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'x-client-id',
        clientSecret: 'x-client-secret',
      },
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    }),
  );
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const part = (content: string, mediaUrls: string[] = []) => ({ content, mediaUrls });
const request = (
  content: string,
  thread: ReturnType<typeof part>[],
  extra: Partial<Parameters<typeof makeRequest>[0]> = {},
) => makeRequest({ platform: 'twitter', content, thread, externalId: fake.user.id, ...extra });
const DOWN = { status: 503, title: 'Service Unavailable', detail: 'Service Unavailable' };
const tweet = (id: string | undefined) => fake.tweets.find((t) => t.id === id);

describe('twitter publisher: threads', () => {
  it('posts the follow-ups after the main post, each a reply to the one before', async () => {
    const h = request(text('Main'), [part(text('Second')), part(text('Third'))]);
    const outcome = expectPublished(await publisher().publish(h.request));
    const [second, third] = outcome.threadPostIds ?? [];
    expect(outcome.threadPostIds).toHaveLength(2);
    expect(tweet(second)?.replyTo).toBe(outcome.platformPostId);
    expect(tweet(third)?.replyTo).toBe(second);
    expect(tweet(third)?.text).toBe(h.request.post.thread[1]?.content);
    // Each id is stored before the next part is sent.
    expect(h.progress.map((p) => p.threadIds)).toEqual([[], [second], [second, third]]);
  });

  it('a follow-up with photos uploads them and attaches their ids', async () => {
    const photo = media.url('photo.jpg', 2048);
    const outcome = expectPublished(
      await publisher().publish(request(text('Main'), [part(text('Pic'), [photo])]).request),
    );
    expect(tweet(outcome.threadPostIds?.[0])?.mediaIds).toHaveLength(1);
  });

  it('a follow-up X refuses fails the target with the ids already published kept', async () => {
    const main = text('Refused later');
    const first = text('Fine');
    // X refuses a duplicate of an earlier post (403): the second follow-up repeats the main post.
    const h = request(main, [part(first), part(main)]);
    const outcome = await publisher().publish(h.request);
    const mainTweet = fake.tweets.find((t) => t.text === main);
    const firstTweet = fake.tweets.find((t) => t.text === first);
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'duplicate_content',
      retryable: false,
      publishedSoFar: { platformPostId: mainTweet?.id, threadPostIds: [firstTweet?.id] },
    });
  });

  it('a retry after a follow-up failed goes on from the next part: nothing re-posted', async () => {
    const h = request(text('Retry main'), [part(text('One')), part(text('Two'))]);
    // The main post and the first follow-up go out; X is down for the second.
    const saveProgress = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await saveProgress(state);
      if ((state.threadIds as string[]).length === 1) {
        fake.script({ error: DOWN, path: '/2/tweets' });
      }
    };
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const count = fake.tweets.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.tweets.length).toBe(count + 1);
    expect(outcome.threadPostIds?.[0]).toBe(
      (h.progress.at(-1)?.threadIds as string[] | undefined)?.[0],
    );
    expect(tweet(outcome.threadPostIds?.[1])?.replyTo).toBe(outcome.threadPostIds?.[0]);
  });

  it('a crash after X created a follow-up: the resume finds it and posts nothing twice', async () => {
    const h = request(text('Crash main'), [part(text('Sent, answer lost')), part(text('Last'))]);
    const saveProgress = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await saveProgress(state);
      // The main post is recorded: the next create (the first follow-up) never answers.
      if (state.tweetId && (state.threadIds as string[]).length === 0) {
        fake.script({ hangAfterCreate: true, path: '/2/tweets' });
      }
    };
    expect(await publisher(300).publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.pendingIntent()?.step).toBe('thread_0');
    const count = fake.tweets.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    // Only the last follow-up was sent by the resume.
    expect(fake.tweets.length).toBe(count + 1);
    const [found, last] = outcome.threadPostIds ?? [];
    expect(tweet(found)?.text).toBe(h.request.post.thread[0]?.content);
    expect(tweet(found)?.replyTo).toBe(outcome.platformPostId);
    expect(tweet(last)?.replyTo).toBe(found);
  });

  it('a resume after the whole thread was stored sends nothing', async () => {
    const h = request(text('Done'), [part(text('Only'))]);
    const first = expectPublished(await publisher().publish(h.request));
    const count = fake.tweets.length;
    const again = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.tweets.length).toBe(count);
    expect(again).toEqual(first);
  });
});
