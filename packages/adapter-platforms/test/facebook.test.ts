import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  FACEBOOK_ERRORS,
  type FacebookError,
  type FakeFacebook,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeFacebook,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeFacebook;
let media: MediaServer;
const PAGE = '102000000000001';
beforeAll(async () => {
  [fake, media] = await Promise.all([
    // Strict: only Page tokens the fake knows act, each for its own Page.
    startFakeFacebook({ videoProcessingPolls: 2, strictTokens: true }),
    startMediaServer(),
  ]);
  fake.pageTokens.set('page-token', PAGE);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const config = (requestTimeoutMs?: number) =>
  testConfig({
    facebook: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' },
    ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
  });
const publisher = (requestTimeoutMs?: number) => publisherFor('facebook', config(requestTimeoutMs));
let unique = 0;
/** Distinct text per test (Facebook refuses duplicate status messages). */
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) =>
  makeRequest({
    platform: 'facebook',
    content,
    externalId: PAGE,
    accessToken: 'page-token',
    refreshToken: null,
    ...extra,
  });
const since = (from: number) => fake.requests.slice(from);
const messageOf = (outcome: { kind: string }) => ('message' in outcome ? outcome.message : '');
/** Milliseconds from now until a throttled outcome's retryAt. */
const waitOf = (outcome: { kind: string }) =>
  'retryAt' in outcome && outcome.retryAt instanceof Date
    ? outcome.retryAt.getTime() - Date.now()
    : 0;

describe('facebook publisher: posts', () => {
  it('a text post goes to /feed with the Page token; its id and URL come back', async () => {
    const content = text('Hello Page');
    const from = fake.requests.length;
    const outcome = expectPublished(await publisher().publish(request(content).request));
    const post = fake.posts.at(-1);
    expect(post).toMatchObject({ pageId: PAGE, message: content });
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: post?.id,
      platformUrl: `https://www.facebook.com/${post?.id}`,
    });
    const calls = since(from);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.path).toBe(`/v21.0/${PAGE}/feed`);
    expect(calls[0]?.body).toMatchObject({ message: content, access_token: 'page-token' });
  });

  it('a link post with platform_options.facebook.link', async () => {
    const from = fake.requests.length;
    expectPublished(
      await publisher().publish(
        request(text('Read this'), {
          platformOptions: { facebook: { link: 'https://example.com/article' } },
        }).request,
      ),
    );
    expect(fake.posts.at(-1)?.link).toBe('https://example.com/article');
    expect(since(from)[0]?.body).toMatchObject({ link: 'https://example.com/article' });
  });

  it('one photo: /photos with its URL and the message; the post id is post_id', async () => {
    const url = media.url('one.jpg', 5_000);
    const content = text('Photo');
    const outcome = expectPublished(
      await publisher().publish(request(content, { mediaUrls: [url] }).request),
    );
    const post = fake.posts.at(-1);
    expect(post).toMatchObject({ message: content });
    expect(outcome.platformPostId).toBe(post?.id);
    expect(fake.photos.get(post?.photoIds[0] ?? '')).toMatchObject({ url, published: true });
  });

  it('several photos: each unpublished, then one /feed post attaching them', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`many-${n}.jpg`, 1_000 + n));
    const h = request(text('Album'), { mediaUrls: urls });
    const outcome = expectPublished(await publisher().publish(h.request));
    const post = fake.posts.at(-1);
    expect(outcome.platformPostId).toBe(post?.id);
    expect(post?.photoIds.map((id) => fake.photos.get(id)?.url)).toEqual(urls);
    expect(post?.photoIds.every((id) => fake.photos.get(id)?.published === false)).toBe(true);
    // Progress saved after each upload; the feed post is under an intent.
    expect(h.progress).toHaveLength(3);
    expect(h.intents).toEqual(['feed']);
  });

  it('a video: /videos with file_url, then the status until ready (slow processing)', async () => {
    const from = fake.requests.length;
    const url = media.url('clip.mp4', 10_000);
    const content = text('Video');
    const outcome = expectPublished(
      await publisher().publish(request(content, { mediaUrls: [url] }).request),
    );
    const video = [...fake.videos.values()].at(-1);
    expect(video).toMatchObject({ fileUrl: url, description: content, pollsLeft: 0 });
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: video?.id,
      platformUrl: `https://www.facebook.com/${video?.id}`,
    });
    // processing, processing, ready
    expect(since(from).filter((r) => r.path === `/v21.0/${video?.id}`)).toHaveLength(3);
  });

  it('a video Facebook cannot process fails for good with its message', async () => {
    fake.failNextVideo("The video file you selected is in a format that we don't support.");
    const outcome = await publisher().publish(
      request(text('Bad video'), { mediaUrls: [media.url('bad.mp4', 3_000)] }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'video_processing_failed',
      retryable: false,
    });
    expect(messageOf(outcome)).toMatch(/format that we don't support/);
  });
});

describe('facebook publisher: resume', () => {
  it('several photos cut after the first upload: the resume uploads only the rest', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`cut-${n}.jpg`, 900 + n));
    fake.script({
      error: FACEBOOK_ERRORS.unknown,
      path: '/photos',
      params: { url: urls[1] ?? '' },
    });
    const h = request(text('Cut album'), { mediaUrls: urls });
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: '1',
      retryable: true,
    });
    const saved = h.progress.at(-1) as { photos: (string | null)[] };
    expect(saved.photos).toEqual([expect.any(String), null, null]);

    const from = fake.requests.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    const uploaded = since(from)
      .filter((r) => r.path.endsWith('/photos'))
      .map((r) => (r.body as Record<string, string>).url);
    expect(uploaded).toEqual([urls[1], urls[2]]);
    const post = fake.posts.at(-1);
    expect(post?.photoIds[0]).toBe(saved.photos[0]);
    expect(post?.photoIds.map((id) => fake.photos.get(id)?.url)).toEqual(urls);
  });

  it('a video whose status check failed is polled on resume, not sent again', async () => {
    fake.script({ error: FACEBOOK_ERRORS.unknown, params: { fields: 'status' } });
    const h = request(text('Interrupted video'), { mediaUrls: [media.url('again.mp4', 2_000)] });
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const videos = fake.videos.size;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.videos.size).toBe(videos);
    expect(outcome.platformPostId).toBe([...fake.videos.values()].at(-1)?.id);
  });
});

describe('facebook publisher: never twice', () => {
  it('an answer lost after the post was made: the resume finds it among the Page posts', async () => {
    const content = text('Lost answer');
    fake.script({ hangAfterCreate: true, path: `/${PAGE}/feed` });
    const h = request(content);
    expect(await publisher(300).publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'network_timeout',
      retryable: true,
    });
    expect(h.pendingIntent()?.step).toBe('feed');
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count);
    expect(outcome.platformPostId).toBe(fake.posts.at(-1)?.id);
  });

  it('a photo post whose connection dropped after it was made: found, not posted again', async () => {
    fake.script({ dropAfterCreate: true, path: `/${PAGE}/photos` });
    const h = request(text('Lost photo'), { mediaUrls: [media.url('lost.jpg', 1_000)] });
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'network_error',
      retryable: true,
    });
    expect(h.pendingIntent()?.step).toBe('photo');
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count);
    expect(outcome.platformPostId).toBe(fake.posts.at(-1)?.id);
  });

  it('a lost video answer: found among the Page videos, stored, polled, not sent again', async () => {
    const content = text('Lost video');
    fake.script({ hangAfterCreate: true, path: `/${PAGE}/videos` });
    const h = request(content, { mediaUrls: [media.url('lost.mp4', 2_000)] });
    await publisher(300).publish(h.request);
    expect(h.pendingIntent()?.step).toBe('video');
    const count = fake.videos.size;
    const resumed = afterCrash(h);
    const outcome = expectPublished(await publisher().resume(resumed.request));
    const video = [...fake.videos.values()].at(-1);
    expect(fake.videos.size).toBe(count);
    expect(outcome.platformPostId).toBe(video?.id);
    expect(resumed.progress[0]).toMatchObject({ video: { videoId: video?.id } });
  });

  it('a request that never arrived is not among the posts: sent, once', async () => {
    fake.script({ drop: true, path: `/${PAGE}/feed` });
    const h = request(text('Never arrived'));
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    expect(h.pendingIntent()?.step).toBe('feed');
    const count = fake.posts.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count + 1);
  });

  it('when Facebook refuses the lookup: outcome_unknown, nothing sent', async () => {
    fake.script({ drop: true, path: `/${PAGE}/feed` });
    const h = request(text('Unknowable'));
    await publisher().publish(h.request);
    fake.script({
      error: {
        code: 10,
        type: 'OAuthException',
        message: '(#10) pages_read_engagement is required',
      },
      path: `/${PAGE}/posts`,
    });
    const count = fake.posts.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(messageOf(outcome)).toMatch(/pages_read_engagement/);
    expect(fake.posts.length).toBe(count);
  });

  it('a lost photo without text: any text-less post could be it, so outcome_unknown', async () => {
    fake.script({ dropAfterCreate: true, path: `/${PAGE}/photos` });
    const h = request('', { mediaUrls: [media.url('quiet.jpg', 1_000)] });
    await publisher().publish(h.request);
    const count = fake.posts.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.posts.length).toBe(count);
  });

  it.each([
    ['a rejected token', FACEBOOK_ERRORS.sessionInvalidated, { kind: 'connection_expired' }],
    ['throttling', FACEBOOK_ERRORS.throttled, { kind: 'throttled', code: '4' }],
    ['an outage', FACEBOOK_ERRORS.unknown, { kind: 'failed', code: '1', retryable: true }],
  ] as const)(
    'a lookup ended by %s ends the run as such, nothing sent',
    async (_, error, expected) => {
      fake.script({ drop: true, path: `/${PAGE}/feed` });
      const h = request(text('Lookup trouble'));
      await publisher().publish(h.request);
      fake.script({ error, path: `/${PAGE}/posts` });
      const count = fake.posts.length;
      expect(await publisher().resume(afterCrash(h).request)).toMatchObject(expected);
      expect(fake.posts.length).toBe(count);
    },
  );
});

describe('facebook publisher: errors', () => {
  it('506 duplicate: duplicate_content, permanent, Graph message kept; the intent is dropped', async () => {
    const content = text('Twice');
    expectPublished(await publisher().publish(request(content).request));
    const h = request(content);
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'duplicate_content', retryable: false });
    expect(messageOf(outcome)).toMatch(/Duplicate status message/);
    expect(h.pendingIntent()).toBeNull();
  });

  it('190: the Page token is invalid and cannot be refreshed: connection_expired', async () => {
    fake.script({ error: FACEBOOK_ERRORS.sessionInvalidated, path: `/${PAGE}/feed` });
    const h = request(text('Expired'));
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
    expect(messageOf(outcome)).toMatch(/session has been invalidated/);
    expect(messageOf(outcome)).toMatch(/reconnect the Page/);
    expect(h.tokens).toEqual([]);
    expect(h.pendingIntent()).toBeNull();
  });

  it('a token Facebook does not know: 190, connection_expired', async () => {
    const outcome = await publisher().publish(
      request(text('Stranger'), { accessToken: 'not-a-page-token' }).request,
    );
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
    expect(messageOf(outcome)).toMatch(/Invalid OAuth access token/);
  });

  it('a token of another Page is refused (permission), permanently', async () => {
    fake.pageTokens.set('token-of-another-page', '999');
    const outcome = await publisher().publish(
      request(text('Wrong page'), { accessToken: 'token-of-another-page' }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: '200', retryable: false });
  });

  it.each([
    [{ code: 10, message: '(#10) Application does not have permission for this action' }, false],
    [{ code: 200, message: '(#200) Permissions error' }, false],
    [{ code: 368, message: 'The action attempted has been deemed abusive' }, false],
    [{ code: 100, message: '(#100) Invalid parameter' }, false],
    [{ code: 2, message: 'Service temporarily unavailable', status: 503 }, true],
    [{ code: 1, message: 'An unknown error has occurred.', status: 500 }, true],
  ] satisfies [FacebookError, boolean][])(
    'code $0.code: retryable $1, message kept',
    async (error, retryable) => {
      fake.script({ error, path: `/${PAGE}/feed` });
      const outcome = await publisher().publish(request(text(`Code ${error.code}`)).request);
      expect(outcome).toMatchObject({ kind: 'failed', code: String(error.code), retryable });
      expect(messageOf(outcome)).toContain(error.message);
    },
  );

  it("the Page limit waits for Meta's estimated_time_to_regain_access (minutes)", async () => {
    const limited = await startFakeFacebook({ postLimit: { limit: 1, windowMs: 5 * 60_000 } });
    try {
      const p = publisherFor(
        'facebook',
        testConfig({ facebook: { apiBaseUrl: limited.baseUrl, graphVersion: 'v21.0' } }),
      );
      const post = (content: string) =>
        makeRequest({ platform: 'facebook', content, externalId: PAGE, accessToken: 't' });
      expectPublished(await p.publish(post('one').request));
      const outcome = await p.publish(post('two').request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: '32' });
      expect(waitOf(outcome)).toBeGreaterThan(4.5 * 60_000);
      expect(waitOf(outcome)).toBeLessThan(6 * 60_000);
      expect(limited.posts).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });

  it('the largest estimate of x-app-usage and x-business-use-case-usage wins', async () => {
    fake.script({
      error: {
        ...FACEBOOK_ERRORS.throttled,
        code: 613,
        headers: {
          'x-app-usage': JSON.stringify({ call_count: 100, estimated_time_to_regain_access: 2 }),
          'x-business-use-case-usage': JSON.stringify({
            [PAGE]: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: 7 }],
          }),
        },
      },
      path: `/${PAGE}/feed`,
    });
    const outcome = await publisher().publish(request(text('Busy')).request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: '613' });
    expect(waitOf(outcome)).toBeGreaterThan(6.5 * 60_000);
    expect(waitOf(outcome)).toBeLessThan(8 * 60_000);
  });

  it('throttled without an estimate: looks again in about ten minutes', async () => {
    fake.script({ error: FACEBOOK_ERRORS.throttled, path: `/${PAGE}/feed` });
    const outcome = await publisher().publish(request(text('App limit')).request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: '4' });
    expect(waitOf(outcome)).toBeGreaterThan(9.5 * 60_000);
    expect(waitOf(outcome)).toBeLessThan(11.5 * 60_000);
  });
});

describe('facebook publisher: media URLs', () => {
  it('a media URL the SSRF guard refuses is never handed to Facebook', async () => {
    const guarded = publisherFor('facebook', {
      ...config(),
      mediaDispatcher: createGuardedDispatcher({ allowPrivateNetworks: false, label: 'strict' }),
    });
    const from = fake.requests.length;
    const cases = [
      [media.url('private.jpg', 100)],
      [media.url('private-1.jpg', 100), media.url('private-2.jpg', 100)],
      [media.url('private.mp4', 100)],
    ];
    for (const mediaUrls of cases) {
      const outcome = await guarded.publish(request(text('Private'), { mediaUrls }).request);
      expect(outcome).toMatchObject({
        kind: 'failed',
        code: 'media_url_refused',
        retryable: false,
      });
      expect(messageOf(outcome)).toContain('127.0.0.1');
    }
    expect(since(from)).toEqual([]);
  });

  it('a media URL with credentials is refused before any connection', async () => {
    const from = fake.requests.length;
    const outcome = await publisher().publish(
      request(text('Secret'), { mediaUrls: ['https://user:pw@cdn.example/a.jpg'] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'media_url_refused', retryable: false });
    expect(since(from)).toEqual([]);
  });
});

describe('facebook rules', () => {
  it('validate: one video or up to ten photos, not both', () => {
    const p = publisher();
    const draft = (mediaUrls: string[]) => ({ content: 'x', mediaUrls, platformOptions: {} });
    expect(p.validate(draft(['https://a/1.jpg', 'https://a/2.mp4']))).toHaveLength(1);
    expect(p.validate(draft(['https://a/1.mp4', 'https://a/2.mp4']))).toHaveLength(1);
    expect(
      p.validate(draft(Array.from({ length: 11 }, (_, n) => `https://a/${n}.jpg`))),
    ).toHaveLength(1);
    expect(p.validate(draft(Array.from({ length: 10 }, (_, n) => `https://a/${n}.jpg`)))).toEqual(
      [],
    );
  });
});
