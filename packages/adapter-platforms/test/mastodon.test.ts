// The Mastodon publisher over real HTTP against the local fake instance: statuses with an
// Idempotency-Key (a replay answers the first status), media streamed from the media URL and
// polled while processed, threads as replies (a failed follow-up keeps the ids published),
// the first comment as the first reply, and the instance's refusals mapped to outcomes.
import type { PostDraft } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeMastodon,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeMastodon,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeMastodon;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([
    startFakeMastodon({ videoProcessingPolls: 2 }),
    startMediaServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = () => publisherFor('mastodon', testConfig());
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const part = (content: string, mediaUrls: string[] = []) => ({ content, mediaUrls });
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) =>
  makeRequest({
    platform: 'mastodon',
    content,
    accessToken: 'mastodon-token',
    refreshToken: null,
    platformData: { instance: fake.baseUrl, maxCharacters: 500 },
    ...extra,
  });
const status = (id: string | undefined) => fake.statuses.find((s) => s.id === id);
const statusCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path === '/api/v1/statuses');

describe('mastodon publisher: statuses', () => {
  it('posts a status with an Idempotency-Key derived from the target, and its visibility', async () => {
    const h = request(text('Hello'), { platformOptions: { mastodon: { visibility: 'unlisted' } } });
    const from = fake.requests.length;
    const outcome = expectPublished(await publisher().publish(h.request));
    const posted = status(outcome.platformPostId);
    expect(posted).toMatchObject({
      status: h.request.post.content,
      visibility: 'unlisted',
      idempotencyKey: `social-publisher:${h.request.target.id}:status`,
    });
    expect(outcome.platformUrl).toBe(posted?.url);
    const [call] = statusCalls(from);
    expect(call?.headers.authorization).toBe('Bearer mastodon-token');
    expect(call?.body).toEqual({
      status: h.request.post.content,
      media_ids: [],
      visibility: 'unlisted',
    });
    expect(h.countedAt).toHaveLength(1);
  });

  it('the same key again answers the first status: a resend never posts twice', async () => {
    // The instance makes the status, then the connection drops before its answer.
    fake.script({ dropAfterCreate: true, path: '/api/v1/statuses' });
    const h = request(text('Dropped answer'));
    const count = fake.statuses.length;
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(fake.statuses).toHaveLength(count + 1);
    expect(h.pendingIntent()?.step).toBe('status');

    const resumed = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.statuses).toHaveLength(count + 1);
    expect(resumed.platformPostId).toBe(fake.statuses.at(-1)?.id);
  });

  it('an earlier send older than the instance keeps keys is not replayed: outcome unknown', async () => {
    const h = request(text('Too late'), {
      intent: { step: 'status', at: new Date(Date.now() - 2 * 3600_000) },
    });
    const from = fake.requests.length;
    const outcome = await publisher().resume(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(statusCalls(from)).toHaveLength(0);
  });

  it('uploads photos (multipart `file`, streamed) and attaches them', async () => {
    const urls = [media.url('a.jpg', 2048), media.url('b.png', 1024)];
    const h = request(text('Photos'), { mediaUrls: urls });
    const outcome = expectPublished(await publisher().publish(h.request));
    const posted = status(outcome.platformPostId);
    expect(posted?.mediaIds).toHaveLength(2);
    expect(posted?.mediaIds.map((id) => fake.media.get(id)?.bytes)).toEqual([2048, 1024]);
  });

  it('a video answered 202 is polled until its url is set, then posted', async () => {
    const h = request(text('Video'), { mediaUrls: [media.url('clip.mp4', 4096)] });
    const from = fake.requests.length;
    const outcome = expectPublished(await publisher().publish(h.request));
    const [id] = status(outcome.platformPostId)?.mediaIds ?? [];
    expect(fake.media.get(id ?? '')?.type).toBe('video');
    const polls = fake.requests.slice(from).filter((r) => r.path === `/api/v1/media/${id}`);
    expect(polls).toHaveLength(3); // 206, 206, then 200 with its url
  });
});

describe('mastodon publisher: threads and first comment', () => {
  it('posts each follow-up as a reply to the one before, ids stored as they go', async () => {
    const h = request(text('Main'), { thread: [part(text('Second')), part(text('Third'))] });
    const outcome = expectPublished(await publisher().publish(h.request));
    const [second, third] = outcome.threadPostIds ?? [];
    expect(status(second)?.inReplyToId).toBe(outcome.platformPostId);
    expect(status(third)?.inReplyToId).toBe(second);
    expect(status(third)?.idempotencyKey).toBe(`social-publisher:${h.request.target.id}:thread_1`);
    expect(h.progress.map((p) => p.threadIds)).toEqual([[], [second], [second, third]]);
  });

  it('a follow-up refused mid-thread fails the target with the ids already published', async () => {
    // The instance refuses the second follow-up only (too long for it at that moment).
    const h = request('Main', { thread: [part('Fine'), part('x'.repeat(60)), part('Never')] });
    fake.maxCharacters = 40;
    const count = fake.statuses.length;
    let outcome: Awaited<ReturnType<ReturnType<typeof publisher>['publish']>>;
    try {
      outcome = await publisher().publish(h.request);
    } finally {
      fake.maxCharacters = 500;
    }
    const [main, first] = fake.statuses.slice(count);
    expect(fake.statuses).toHaveLength(count + 2);
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'unprocessable',
      retryable: false,
      message: expect.stringContaining('character limit of 40'),
      publishedSoFar: {
        platformPostId: main?.id,
        platformUrl: main?.url,
        threadPostIds: [first?.id],
      },
    });
    // The ids are stored: a resume goes on from the refused part, never re-posts the others.
    const resumed = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(resumed.platformPostId).toBe(main?.id);
    expect(resumed.threadPostIds?.[0]).toBe(first?.id);
    expect(resumed.threadPostIds).toHaveLength(3);
    expect(fake.statuses).toHaveLength(count + 4);
  });

  it('the first comment is the first reply to the status', async () => {
    const h = request(text('Main'), { firstComment: text('First reply') });
    const outcome = expectPublished(await publisher().publish(h.request));
    const reply = status(outcome.firstCommentId ?? undefined);
    expect(reply?.inReplyToId).toBe(outcome.platformPostId);
    expect(reply?.status).toBe(h.request.post.firstComment);
    expect(reply?.idempotencyKey).toBe(`social-publisher:${h.request.target.id}:first_comment`);
  });
});

describe('mastodon publisher: refusals', () => {
  it('429 waits until X-RateLimit-Reset without spending an attempt', async () => {
    const reset = new Date(Date.now() + 600_000);
    fake.script({
      error: {
        status: 429,
        error: 'Too many requests',
        headers: {
          'x-ratelimit-limit': '300',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': reset.toISOString(),
        },
      },
      path: '/api/v1/statuses',
    });
    const outcome = await publisher().publish(request(text('Throttled')).request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limited' });
    if (outcome.kind !== 'throttled') return;
    expect(outcome.retryAt.getTime()).toBeGreaterThanOrEqual(reset.getTime() - 1_000);
    expect(outcome.retryAt.getTime()).toBeLessThan(reset.getTime() + 70_000);
  });

  it('401 expires the connection (Mastodon tokens cannot be renewed)', async () => {
    fake.expireAccessToken('revoked-token');
    const outcome = await publisher().publish(
      request(text('Revoked'), { accessToken: 'revoked-token' }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'connection_expired',
      message: expect.stringContaining('The access token is invalid'),
    });
  });

  it('422 is permanent, 5xx is retried', async () => {
    fake.maxCharacters = 10;
    try {
      const outcome = await publisher().publish(request(text('Longer than ten')).request);
      expect(outcome).toMatchObject({
        kind: 'failed',
        code: 'unprocessable',
        retryable: false,
        message: expect.stringContaining('character limit of 10'),
      });
    } finally {
      fake.maxCharacters = 500;
    }
    fake.script({ error: { status: 503, error: 'Service Unavailable' }, path: '/api/v1/statuses' });
    const down = await publisher().publish(request(text('Down')).request);
    expect(down).toMatchObject({ kind: 'failed', code: 'http_503', retryable: true });
  });

  it('a connection that does not know its instance fails without calling anything', async () => {
    const outcome = await publisher().publish(
      request(text('Where'), { platformData: null }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'instance_unknown', retryable: false });
  });
});

describe('mastodon validation', () => {
  const draft = (overrides: Partial<PostDraft> = {}): PostDraft => ({
    content: 'Hello',
    mediaUrls: [],
    platformOptions: {},
    thread: [],
    firstComment: null,
    ...overrides,
  });
  const p = () => publisher();

  it("counts each part against THAT connection's instance limit, naming it", () => {
    const long = 'x'.repeat(600);
    const small = { instance: 'https://small.example', maxCharacters: 500 };
    const large = { instance: 'https://large.example', maxCharacters: 1000 };
    expect(p().validateFor?.(draft({ content: long }), small, 'social_account_ids[0]')).toEqual([
      {
        field: 'content',
        message:
          'is 600 characters: Mastodon statuses on https://small.example are limited to 500 characters',
      },
    ]);
    expect(p().validateFor?.(draft({ content: long }), large, 'social_account_ids[1]')).toEqual([]);
    const problems = p().validateFor?.(
      draft({ thread: [part('ok'), part(long)], firstComment: long }),
      small,
      'x',
    );
    expect(problems?.map((problem) => problem.field)).toEqual([
      'thread[1].content',
      'first_comment',
    ]);
    // Without platform data (a sandbox connection): Mastodon's default of 500.
    expect(p().validateFor?.(draft({ content: long }), null, 'x')).toHaveLength(1);
  });

  it('links count as 23 characters and remote mentions by their username', () => {
    const url = `https://example.com/${'a'.repeat(600)}`;
    const data = { instance: 'https://i.example', maxCharacters: 30 };
    expect(p().validateFor?.(draft({ content: `see ${url}` }), data, 'x')).toEqual([]);
    expect(
      p().validateFor?.(
        draft({ content: '@someone@far.away.example hi' }),
        { ...data, maxCharacters: 12 },
        'x',
      ),
    ).toEqual([]);
  });

  it('takes 4 photos or 1 video per status, in the thread too', () => {
    const photos = Array.from({ length: 5 }, (_, i) => `https://m.example/${i}.jpg`);
    expect(p().validate(draft({ mediaUrls: photos }))).toEqual([
      { field: 'media_urls', message: 'mastodon takes at most 4 photos per post' },
    ]);
    expect(
      p().validate(
        draft({ thread: [part('v', ['https://m.example/a.mp4', 'https://m.example/b.mp4'])] }),
      ),
    ).toEqual([{ field: 'thread[0].media_urls', message: 'mastodon takes one video per post' }]);
  });
});
