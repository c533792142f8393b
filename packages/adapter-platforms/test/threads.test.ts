// The Threads publisher over real HTTP against the local fake: containers, video polling,
// carousels, reply chains, the first reply, failures mid-thread, throttling, token expiry and
// never publishing twice after a lost answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformRateLimits } from '../src/index.ts';
import {
  afterCrash,
  expectPublished,
  type FakeThreads,
  makeRequest,
  publisherFor,
  type RequestInput,
  startFakeThreads,
  THREADS_ERRORS,
  testConfig,
} from './helpers.ts';

const IMAGE = 'https://cdn.example.com/photo.jpg';
const VIDEO = 'https://cdn.example.com/clip.mp4';

let fake: FakeThreads;
beforeAll(async () => {
  fake = await startFakeThreads({ videoProcessingPolls: 2 });
});
afterAll(() => fake.close());

const publisher = (requestTimeoutMs?: number) =>
  publisherFor(
    'threads',
    testConfig({
      threads: { apiBaseUrl: fake.baseUrl },
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    }),
  );
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const part = (content: string, mediaUrls: string[] = []) => ({ content, mediaUrls });
const request = (content: string, extra: Partial<RequestInput> = {}) =>
  makeRequest({ platform: 'threads', content, externalId: fake.profile.id, ...extra });
const since = (from: number) => fake.requests.slice(from);
const creates = (from: number) =>
  since(from).filter((r) => r.method === 'POST' && r.path.endsWith('/threads'));
const publishes = (from: number) => since(from).filter((r) => r.path.endsWith('/threads_publish'));
const post = (id: string | undefined) => fake.posts.find((p) => p.id === id);

describe('threads publisher', () => {
  it('publishes a text post: TEXT container, status, threads_publish, permalink', async () => {
    const from = fake.requests.length;
    const content = text('Hello Threads');
    const outcome = expectPublished(await publisher().publish(request(content).request));
    const [create] = creates(from);
    expect(create?.path).toBe(`/v1.0/${fake.profile.id}/threads`);
    expect(create?.query.access_token).toBe('access-1');
    expect(create?.body).toEqual({ media_type: 'TEXT', text: content });
    const container = fake.containers.at(-1);
    const status = since(from).find((r) => r.path === `/v1.0/${container?.id}`);
    expect(status?.query.fields).toBe('status,error_message');
    expect(publishes(from)[0]?.query.creation_id).toBe(container?.id);
    const made = fake.posts.at(-1);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: made?.id,
      platformUrl: made?.permalink,
    });
    expect(made).toMatchObject({ text: content, mediaType: 'TEXT', replyTo: null });
  });

  it('publishes a video after polling its container (stored before the wait)', async () => {
    const from = fake.requests.length;
    const h = request(text('A clip'), { mediaUrls: [VIDEO] });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(creates(from)[0]?.body).toMatchObject({ media_type: 'VIDEO', video_url: VIDEO });
    const container = fake.containers.at(-1);
    expect(h.progress[0]).toMatchObject({ container: { part: 0, id: container?.id } });
    const polls = since(from).filter((r) => r.path === `/v1.0/${container?.id}`);
    expect(polls).toHaveLength(3); // IN_PROGRESS x2, FINISHED
    expect(post(outcome.platformPostId)?.mediaUrls).toEqual([VIDEO]);
  });

  it('publishes an image as IMAGE and several media as a CAROUSEL of finished items', async () => {
    const single = expectPublished(
      await publisher().publish(request(text('Pic'), { mediaUrls: [IMAGE] }).request),
    );
    expect(post(single.platformPostId)?.mediaType).toBe('IMAGE');

    const from = fake.requests.length;
    const urls = [IMAGE, VIDEO, 'https://cdn.example.com/two.png'];
    const outcome = expectPublished(
      await publisher().publish(request(text('Album'), { mediaUrls: urls }).request),
    );
    const bodies = creates(from).map((r) => r.body as Record<string, string>);
    expect(bodies.slice(0, 3)).toEqual([
      { media_type: 'IMAGE', image_url: IMAGE, is_carousel_item: 'true' },
      { media_type: 'VIDEO', video_url: VIDEO, is_carousel_item: 'true' },
      { media_type: 'IMAGE', image_url: urls[2], is_carousel_item: 'true' },
    ]);
    expect(bodies[3]).toMatchObject({ media_type: 'CAROUSEL' });
    expect(bodies[3]?.children?.split(',')).toHaveLength(3);
    expect(post(outcome.platformPostId)).toMatchObject({ mediaType: 'CAROUSEL', mediaUrls: urls });
  });

  it('publishes the follow-ups as a reply chain, each id stored before the next', async () => {
    const h = request(text('Main'), {
      thread: [part(text('Second')), part(text('Third'), [IMAGE])],
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const [second, third] = outcome.threadPostIds ?? [];
    expect(post(second)?.replyTo).toBe(outcome.platformPostId);
    expect(post(third)).toMatchObject({ replyTo: second, mediaType: 'IMAGE' });
    const stored = h.progress.filter((p) => p.container === null).map((p) => p.threadIds);
    expect(stored).toEqual([[], [second], [second, third]]);
    // Only the main post waits for the pacer (replies have their own quota).
    expect(h.countedAt).toHaveLength(1);
  });

  it('publishes first_comment as the first reply to the post, after its thread', async () => {
    const h = request(text('Commented'), {
      thread: [part(text('Follow-up'))],
      firstComment: 'The link: https://example.com',
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const reply = post(outcome.firstCommentId ?? undefined);
    expect(reply).toMatchObject({
      text: 'The link: https://example.com',
      replyTo: outcome.platformPostId,
    });
    expect(outcome.threadPostIds).toHaveLength(1);
    expect(post(outcome.threadPostIds?.[0])?.replyTo).toBe(outcome.platformPostId);
  });

  it('a follow-up refused fails the target with the ids already published kept', async () => {
    const h = request(text('Kept'), { thread: [part(text('Out')), part(text('Refused'))] });
    const saveProgress = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await saveProgress(state);
      if ((state.threadIds as string[]).length === 1 && state.container === null) {
        fake.script({ error: THREADS_ERRORS.permission, on: 'create' });
      }
    };
    const outcome = await publisher().publish(h.request);
    const main = fake.posts.find((p) => p.text === h.request.post.content);
    const first = fake.posts.find((p) => p.text === h.request.post.thread[0]?.content);
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: '10',
      retryable: false,
      publishedSoFar: { platformPostId: main?.id, threadPostIds: [first?.id] },
    });
  });

  it('a retry after a follow-up failed goes on from the next part: nothing re-posted', async () => {
    const h = request(text('Retry'), { thread: [part(text('One')), part(text('Two'))] });
    const saveProgress = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await saveProgress(state);
      if ((state.threadIds as string[]).length === 1 && state.container === null) {
        fake.script({ error: THREADS_ERRORS.serverError, on: 'create' });
      }
    };
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count + 1);
    const [one, two] = outcome.threadPostIds ?? [];
    expect(post(one)?.text).toBe(h.request.post.thread[0]?.content);
    expect(post(two)?.replyTo).toBe(one);
  });

  it('never twice: threads_publish took effect but its answer was lost -> the resume finds the post', async () => {
    const h = request(text('Lost answer'));
    fake.script({ dropAfterPublish: true });
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.pendingIntent()?.step).toBe('publish');
    const count = fake.posts.length;
    const from = fake.requests.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count);
    expect(outcome.platformPostId).toBe(fake.posts.at(-1)?.id);
    const lookup = since(from).find((r) => r.path === `/v1.0/${fake.profile.id}/threads`);
    expect(lookup?.query.fields).toBe('id,text,timestamp');
    expect(publishes(from)).toHaveLength(0);
  });

  it('never twice: a follow-up whose answer was lost is found among the replies', async () => {
    const h = request(text('Chain'), { thread: [part(text('Dropped')), part(text('Last'))] });
    const saveProgress = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await saveProgress(state);
      if (state.postId && (state.threadIds as string[]).length === 0 && state.container) {
        fake.script({ dropAfterPublish: true });
      }
    };
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.pendingIntent()?.step).toBe('thread_0');
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count + 1); // only the last follow-up
    const [found, last] = outcome.threadPostIds ?? [];
    expect(post(found)?.text).toBe(h.request.post.thread[0]?.content);
    expect(post(last)?.replyTo).toBe(found);
  });

  it('a lookup Threads refuses, or a lost post without text, ends outcome_unknown: nothing re-sent', async () => {
    const refusedLookup = request(text('Unlookable'), {
      intent: { step: 'publish', at: new Date() },
    });
    fake.script({ error: THREADS_ERRORS.permission, on: 'recent' });
    const count = fake.posts.length;
    expect(await publisher().resume(refusedLookup.request)).toMatchObject({
      kind: 'failed',
      code: 'outcome_unknown',
      retryable: false,
    });

    const h = request('', { mediaUrls: [IMAGE] });
    fake.script({ dropAfterPublish: true });
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed' });
    const after = fake.posts.length;
    expect(await publisher().resume(afterCrash(h).request)).toMatchObject({
      code: 'outcome_unknown',
      message: expect.stringContaining('without text'),
    });
    expect(fake.posts.length).toBe(after);
    expect(after).toBe(count + 1);
  });

  it('an intent whose post never arrived publishes once', async () => {
    const h = request(text('Never arrived'), { intent: { step: 'publish', at: new Date() } });
    const count = fake.posts.length;
    expectPublished(await publisher().resume(h.request));
    expect(fake.posts.length).toBe(count + 1);
  });

  it('a resume follows the stored container instead of making another', async () => {
    const h = request(text('Resumed clip'), { mediaUrls: [VIDEO] });
    fake.script({ error: THREADS_ERRORS.serverError, on: 'publish' });
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const containers = fake.containers.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.containers.length).toBe(containers);
    expect(post(outcome.platformPostId)?.containerId).toBe(fake.containers.at(-1)?.id);
  });

  it('a first reply refused keeps the thread ids; the retry sends only the reply', async () => {
    const reply = text('The reply');
    const h = request(text('With both'), { thread: [part(text('Part'))], firstComment: reply });
    fake.script({ error: THREADS_ERRORS.serverError, on: 'create', text: reply });
    const failed = await publisher().publish(h.request);
    const main = fake.posts.find((p) => p.text === h.request.post.content);
    const follow = fake.posts.find((p) => p.text === h.request.post.thread[0]?.content);
    expect(failed).toMatchObject({
      kind: 'failed',
      retryable: true,
      publishedSoFar: { platformPostId: main?.id, threadPostIds: [follow?.id] },
    });
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count + 1);
    expect(outcome).toMatchObject({ platformPostId: main?.id, threadPostIds: [follow?.id] });
    expect(post(outcome.firstCommentId ?? undefined)).toMatchObject({
      text: reply,
      replyTo: main?.id,
    });
  });

  it('the publishing limit waits an hour; other throttles ten minutes', async () => {
    fake.script({ error: THREADS_ERRORS.publishingLimit, on: 'publish' });
    const before = Date.now();
    const quota = await publisher().publish(request(text('Quota')).request);
    expect(quota).toMatchObject({ kind: 'throttled', code: '2207042' });
    const quotaWait = quota.kind === 'throttled' ? quota.retryAt.getTime() - before : 0;
    expect(quotaWait).toBeGreaterThanOrEqual(60 * 60_000);
    expect(quota.kind === 'throttled' && quota.message).toMatch(/250/);

    fake.script({ error: THREADS_ERRORS.userRateLimit, on: 'create' });
    const rate = await publisher().publish(request(text('Rate')).request);
    expect(rate).toMatchObject({ kind: 'throttled', code: '17' });
    const rateWait = rate.kind === 'throttled' ? rate.retryAt.getTime() - before : 0;
    expect(rateWait).toBeGreaterThanOrEqual(10 * 60_000);
    expect(rateWait).toBeLessThan(60 * 60_000);
  });

  it('paces at 250 posts per 24 hours by default (THREADS_RATE_LIMIT), off when asked', () => {
    expect(platformRateLimits({})('threads')).toEqual({ count: 250, windowMs: 86_400_000 });
    expect(platformRateLimits({ threads: { rateLimit: 'off' } })('threads')).toBeNull();
  });

  it('past the profile limit the fake answers the limit error: throttled, nothing published', async () => {
    const limited = await startFakeThreads({ postLimit: 1 });
    try {
      const on = publisherFor('threads', testConfig({ threads: { apiBaseUrl: limited.baseUrl } }));
      const input = { platform: 'threads', externalId: limited.profile.id } as const;
      expectPublished(await on.publish(makeRequest({ ...input, content: 'one' }).request));
      const second = await on.publish(makeRequest({ ...input, content: 'two' }).request);
      expect(second).toMatchObject({ kind: 'throttled', code: '2207042' });
      expect(limited.posts).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });

  it('an expired token ends with connection_expired', async () => {
    const h = request(text('Expired'), { accessToken: 'THAA-expired' });
    fake.expireAccessToken('THAA-expired');
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
    expect(outcome.kind === 'connection_expired' && outcome.message).toMatch(/190/);
  });

  it('a container Threads could not process fails for good with its error message', async () => {
    fake.script({ containerStatus: 'ERROR', errorMessage: 'INVALID_DURATION' });
    const outcome = await publisher().publish(request(text('Bad'), { mediaUrls: [VIDEO] }).request);
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'media_processing_failed',
      retryable: false,
      message: expect.stringContaining('INVALID_DURATION'),
    });
  });

  it('validates: at most 20 media per post and per follow-up', () => {
    const many = Array.from({ length: 21 }, (_, i) => `https://cdn.example.com/${i}.jpg`);
    const problems = publisher().validate({
      content: 'x',
      mediaUrls: many,
      thread: [part('y', many)],
      platformOptions: {},
    });
    expect(problems.map((p) => p.field)).toEqual(['media_urls', 'thread[0].media_urls']);
  });
});
