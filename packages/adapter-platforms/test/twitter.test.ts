import { validateCreatePost } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import { comparableText, weightedLength } from '../src/twitter/text.ts';
import { X_MAX_IMAGE_BYTES, X_SEGMENT_BYTES } from '../src/twitter/upload.ts';
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
  [fake, media] = await Promise.all([startFakeX({ videoProcessingPolls: 2 }), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const config = (requestTimeoutMs?: number) =>
  testConfig({
    twitter: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
    },
    ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
  });
const publisher = (requestTimeoutMs?: number) => publisherFor('twitter', config(requestTimeoutMs));
let unique = 0;
/** Distinct text per test (X refuses duplicates). */
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) =>
  makeRequest({ platform: 'twitter', content, externalId: fake.user.id, ...extra });
const since = (from: number) => fake.requests.slice(from);

describe('twitter publisher: posts', () => {
  it('posts text and returns the post id and its x.com URL', async () => {
    const content = text('Hello X');
    const outcome = expectPublished(await publisher().publish(request(content).request));
    const tweet = fake.tweets.at(-1);
    expect(tweet?.text).toBe(content);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: tweet?.id,
      platformUrl: `https://x.com/i/web/status/${tweet?.id}`,
    });
  });

  it('replies to a post with platform_options.twitter.replyToTweetId', async () => {
    const parent = expectPublished(await publisher().publish(request(text('Parent')).request));
    expectPublished(
      await publisher().publish(
        request(text('Child'), {
          platformOptions: { twitter: { replyToTweetId: parent.platformPostId } },
        }).request,
      ),
    );
    expect(fake.tweets.at(-1)?.replyTo).toBe(parent.platformPostId);
  });

  it('uploads up to four photos, one request each, and attaches their media ids', async () => {
    const from = fake.requests.length;
    const urls = [1, 2, 3].map((n) => media.url(`photo-${n}.jpg`, 20_000 + n));
    const h = request(text('Photos'), { mediaUrls: urls });
    expectPublished(await publisher().publish(h.request));
    const uploads = since(from).filter((r) => r.path === '/2/media/upload');
    expect(uploads).toHaveLength(3);
    const tweet = fake.tweets.at(-1);
    expect(tweet?.mediaIds).toHaveLength(3);
    expect(tweet?.mediaIds.map((id) => fake.media.get(id)?.totalBytes)).toEqual([
      20_001, 20_002, 20_003,
    ]);
  });

  it('uploads a video in segments by range, finalizes, waits for processing, then posts', async () => {
    const size = 2 * X_SEGMENT_BYTES + 12_345;
    const from = fake.requests.length;
    const url = media.url('clip.mp4', size);
    expectPublished(
      await publisher().publish(request(text('Video'), { mediaUrls: [url] }).request),
    );
    const calls = since(from).map((r) => `${r.method} ${r.path}`);
    expect(calls.filter((c) => c.endsWith('/append'))).toHaveLength(3);
    expect(calls.filter((c) => c === 'GET /2/media/upload').length).toBeGreaterThanOrEqual(2);
    const item = fake.media.get(fake.tweets.at(-1)?.mediaIds[0] ?? '');
    expect(item).toMatchObject({ kind: 'video', totalBytes: size, finalized: true });
    expect([...(item?.segments.values() ?? [])]).toEqual([
      X_SEGMENT_BYTES,
      X_SEGMENT_BYTES,
      12_345,
    ]);
    expect(
      media.requests.filter((r) => r.path.endsWith('/clip.mp4') && r.headers.range),
    ).toHaveLength(3);
  });

  it('a video upload cut after one segment resumes from the next segment, never re-initialized', async () => {
    const size = 2 * X_SEGMENT_BYTES + 1;
    const url = media.url('resume.mp4', size);
    const h = request(text('Resumed video'), { mediaUrls: [url] });
    // The second append fails for good on this run (a dropped connection).
    let appends = 0;
    const before = fake.requests.length;
    const original = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await original(state);
      const video = (state as { video?: { segmentsDone?: number } }).video;
      if (video?.segmentsDone === 1 && appends++ === 0) {
        const mediaId = (state as { video: { mediaId: string } }).video.mediaId;
        fake.script({ drop: true, path: `/2/media/upload/${mediaId}/append` });
      }
    };
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const inits = () => fake.requests.filter((r) => r.path === '/2/media/upload/initialize').length;
    const initsBefore = inits();
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(inits()).toBe(initsBefore);
    const item = fake.media.get(fake.tweets.at(-1)?.mediaIds[0] ?? '');
    expect(item?.segments.size).toBe(3);
    expect(since(before).filter((r) => r.path.endsWith('/append')).length).toBe(4);
  });
});

describe('twitter publisher: media', () => {
  it('four photos, the most X takes, go in one post in their order', async () => {
    const urls = [1, 2, 3, 4].map((n) => media.url(`four-${n}.png`, 1_000 * n));
    expectPublished(await publisher().publish(request(text('Four'), { mediaUrls: urls }).request));
    const ids = fake.tweets.at(-1)?.mediaIds ?? [];
    expect(ids.map((id) => fake.media.get(id)?.totalBytes)).toEqual([1_000, 2_000, 3_000, 4_000]);
  });

  it('an image over 5 MiB is refused for good before any upload, and nothing is posted', async () => {
    const from = fake.requests.length;
    const count = fake.tweets.length;
    const outcome = await publisher().publish(
      request(text('Huge'), { mediaUrls: [media.url('huge.jpg', X_MAX_IMAGE_BYTES + 1)] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'media_too_large', retryable: false });
    expect(since(from).filter((r) => r.path.startsWith('/2/media'))).toEqual([]);
    expect(fake.tweets.length).toBe(count);
  });

  it('waits as long as check_after_secs says between processing checks (pending, in_progress)', async () => {
    const slow = await startFakeX({ videoProcessingPolls: 1, checkAfterSecs: 1 });
    try {
      const p = publisherFor(
        'twitter',
        testConfig({
          twitter: { apiBaseUrl: slow.baseUrl, tokenBaseUrl: slow.baseUrl },
          pollIntervalMs: 5,
        }),
      );
      const started = Date.now();
      expectPublished(
        await p.publish(
          makeRequest({
            platform: 'twitter',
            content: 'slow video',
            externalId: slow.user.id,
            mediaUrls: [media.url('slow.mp4', 1_000)],
          }).request,
        ),
      );
      // finalize says pending (1 s), STATUS says in_progress (1 s), then succeeded.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      const item = slow.media.get(slow.tweets.at(-1)?.mediaIds[0] ?? '');
      expect(item?.statusCalls).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it('a video X fails to process ends permanently with X message, and nothing is posted', async () => {
    fake.failNextVideo('Your media has an unsupported codec.');
    const count = fake.tweets.length;
    const outcome = await publisher().publish(
      request(text('Bad codec'), { mediaUrls: [media.url('bad.mp4', 5_000)] }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'video_processing_failed',
      retryable: false,
    });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/unsupported codec/);
    expect(fake.tweets.length).toBe(count);
  });

  it('a resume while X processes the video only checks the status: no append, no finalize', async () => {
    const h = request(text('Resumed while processing'), {
      mediaUrls: [media.url('processing.mp4', 10_000)],
    });
    const original = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await original(state);
      if ((state as { video?: { finalized?: boolean } }).video?.finalized) {
        fake.script({ drop: true, path: '/2/media/upload' }); // the next STATUS call
      }
    };
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const from = fake.requests.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    const calls = since(from).map((r) => `${r.method} ${r.path}`);
    expect(calls.filter((c) => /initialize|append|finalize/.test(c))).toEqual([]);
    expect(calls).toContain('GET /2/media/upload');
    expect(calls.at(-1)).toBe('POST /2/tweets');
  });

  it('a resume after X forgot the uploaded media uploads them again', async () => {
    const url = media.url('forgotten.jpg', 3_000);
    const h = request(text('Forgotten media'), { mediaUrls: [url] });
    fake.script({ drop: true, path: '/2/tweets' });
    await publisher().publish(h.request);
    const stored = h.progress.at(-1) as { images: string[]; expiresAt: number };
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    // Still valid: reused.
    const from = fake.requests.length;
    const reused = makeRequest({
      platform: 'twitter',
      content: h.request.post.content,
      mediaUrls: [url],
      externalId: fake.user.id,
      resumeState: stored,
    });
    fake.script({ drop: true, path: '/2/tweets' });
    await publisher().resume(reused.request);
    expect(since(from).filter((r) => r.path === '/2/media/upload')).toEqual([]);
    // A day later X no longer knows the id: uploaded afresh.
    const late = afterCrash(h, { ...stored, expiresAt: Date.now() - 1 });
    expectPublished(await publisher().resume(late.request));
    const ids = fake.tweets.at(-1)?.mediaIds ?? [];
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe(stored.images[0]);
  });
});

describe('twitter publisher: never twice', () => {
  it('an answer lost after X created the post: the resume finds it among the recent posts', async () => {
    const content = text('Lost answer https://example.com/a/very/long/link');
    fake.script({ hangAfterCreate: true, path: '/2/tweets' });
    const h = request(content);
    expect(await publisher(300).publish(h.request)).toMatchObject({
      kind: 'failed',
      retryable: true,
    });
    expect(h.pendingIntent()?.step).toBe('create_tweet');
    const count = fake.tweets.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.tweets.length).toBe(count);
    expect(outcome.platformPostId).toBe(fake.tweets.at(-1)?.id);
  });

  it('finds a lost post with media, links and "&" although X shows it rewritten', async () => {
    const content = text('Tom & Jerry <3 see example.com/page and https://example.org/x?y=1');
    const h = request(content, { mediaUrls: [media.url('lost.jpg', 2_000)] });
    fake.script({ hangAfterCreate: true, path: '/2/tweets' });
    expect(await publisher(300).publish(h.request)).toMatchObject({ kind: 'failed' });
    const shown = fake.tweets.at(-1)?.shown ?? '';
    expect(shown).toMatch(
      /^Tom &amp; Jerry &lt;3 see https:\/\/t\.co\/\S+ and https:\/\/t\.co\/\S+ #\d+ https:\/\/t\.co\/\S+$/,
    );
    const count = fake.tweets.length;
    const from = fake.requests.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(outcome.platformPostId).toBe(fake.tweets.at(-1)?.id);
    expect(fake.tweets.length).toBe(count);
    // Only the posts since the intent (minus clock skew) are asked for, 100 at most.
    const lookup = since(from).find((r) => r.path === `/2/users/${fake.user.id}/tweets`);
    expect(lookup?.query.max_results).toBe('100');
    const startTime = Date.parse(lookup?.query.start_time ?? '');
    expect(startTime).toBeLessThan(Date.now() - 4 * 60_000);
    expect(startTime).toBeGreaterThan(Date.now() - 6 * 60_000);
    expect(since(from).filter((r) => r.path === '/2/media/upload')).toEqual([]);
  });

  it('an older post with the same text is not taken for the lost one', async () => {
    const content = text('Said before');
    expectPublished(await publisher().publish(request(content).request));
    const first = fake.tweets.at(-1);
    if (first) first.createdAt = new Date(Date.now() - 60 * 60_000); // an hour ago
    // The intent of a later attempt: the post of an hour before is no proof of it.
    const h = request(content, { intent: { step: 'create_tweet', at: new Date() } });
    const outcome = await publisher().resume(h.request);
    // Not found, so sent again: X itself refuses the duplicate text.
    expect(outcome).toMatchObject({ kind: 'failed', code: 'duplicate_content' });
  });

  it('a request that never arrived is not among the recent posts: sent once', async () => {
    fake.script({ drop: true, path: '/2/tweets' });
    const h = request(text('Never arrived'));
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    expect(h.pendingIntent()?.step).toBe('create_tweet');
    const count = fake.tweets.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.tweets.length).toBe(count + 1);
  });

  it('when X refuses the lookup, the target ends outcome_unknown and nothing is sent', async () => {
    fake.script({ drop: true, path: '/2/tweets' });
    const h = request(text('Unknowable'));
    await publisher().publish(h.request);
    fake.script({
      error: { status: 403, title: 'Forbidden', detail: 'tweet.read scope is missing' },
      path: `/2/users/${fake.user.id}/tweets`,
    });
    const count = fake.tweets.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/tweet.read scope is missing/);
    expect(fake.tweets.length).toBe(count);
  });

  it('a refusal proves nothing was posted: the intent is dropped', async () => {
    fake.script({
      error: {
        status: 403,
        title: 'Forbidden',
        detail: 'You are not allowed to create a Tweet with duplicate content.',
      },
      path: '/2/tweets',
    });
    const h = request(text('Refused'));
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'duplicate_content',
      retryable: false,
    });
    expect(h.pendingIntent()).toBeNull();
  });
});

describe('twitter publisher: errors', () => {
  it('X refuses duplicate text with 403: duplicate_content, permanent, X message kept', async () => {
    const content = text('Twice');
    expectPublished(await publisher().publish(request(content).request));
    const outcome = await publisher().publish(request(content).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'duplicate_content', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/duplicate content/);
  });

  it('429 waits until x-rate-limit-reset, without spending an attempt', async () => {
    const limited = await startFakeX({ postLimit: { limit: 1, windowMs: 60_000 } });
    try {
      const p = publisherFor(
        'twitter',
        testConfig({
          twitter: {
            apiBaseUrl: limited.baseUrl,
            tokenBaseUrl: limited.baseUrl,
            clientId: 'a',
            clientSecret: 'b',
          },
        }),
      );
      expectPublished(
        await p.publish(
          makeRequest({ platform: 'twitter', content: 'one', externalId: limited.user.id }).request,
        ),
      );
      const outcome = await p.publish(
        makeRequest({ platform: 'twitter', content: 'two', externalId: limited.user.id }).request,
      );
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded' });
      const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      expect(at).toBeGreaterThan(Date.now() + 50_000);
      expect(at).toBeLessThan(Date.now() + 70_000);
    } finally {
      await limited.close();
    }
  });

  it('401: refreshes once (X rotates the refresh token: both new tokens are saved) and posts', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'x-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'tweet.read tweet.write users.read offline.access',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const granted = fake.oauth.exchangeCode({
      code: new URL(consent.redirect).searchParams.get('code') ?? '',
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
      redirectUri: 'https://app.example/cb',
      codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    fake.expireAccessToken(granted.tokens.accessToken);
    const h = request(text('Refreshed'), {
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    });
    expectPublished(await publisher().publish(h.request));
    expect(h.tokens).toHaveLength(1);
    expect(h.tokens[0]?.refreshToken).not.toBe(granted.tokens.refreshToken);
  });

  it('401 with a refresh token X refuses: connection_expired', async () => {
    fake.script({
      error: { status: 401, title: 'Unauthorized', detail: 'Unauthorized' },
      path: '/2/tweets',
    });
    const outcome = await publisher().publish(
      request(text('Expired'), { refreshToken: 'spent' }).request,
    );
    expect(outcome.kind).toBe('connection_expired');
  });

  it('400 is permanent with X detail (a text X counts over 280)', async () => {
    const outcome = await publisher().publish(
      request(`${text('Long')} ${'界'.repeat(140)}`).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'invalid_request', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/Tweet text is too long/);
  });

  it('5xx is retryable with the status in the code', async () => {
    fake.script({
      error: { status: 503, title: 'Service Unavailable', detail: 'Service Unavailable' },
      path: '/2/tweets',
    });
    const outcome = await publisher().publish(request(text('Down')).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'http_503', retryable: true });
  });

  it('a media URL the SSRF guard refuses is never fetched or sent', async () => {
    const guarded = publisherFor('twitter', {
      ...config(),
      mediaDispatcher: (await import('@social-publisher/net-guard')).createGuardedDispatcher({
        allowPrivateNetworks: false,
        label: 'strict',
      }),
    });
    const outcome = await guarded.publish(
      request(text('Private'), { mediaUrls: [media.url('a.jpg', 100)] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'media_url_refused', retryable: false });
  });
});

describe('twitter rules', () => {
  it('counts as X does: URLs 23, CJK and emoji 2', () => {
    expect(weightedLength('a'.repeat(280))).toBe(280);
    expect(weightedLength('日本語'.repeat(47))).toBe(282);
    expect(weightedLength('😀'.repeat(140))).toBe(280);
    expect(weightedLength('👍🏽')).toBe(2); // an emoji with a skin tone is one emoji
    expect(weightedLength(`${'a'.repeat(250)} https://example.com/${'x'.repeat(100)}`)).toBe(274);
  });

  it('a post X counts over 280 is refused at validation with a content problem', () => {
    const registry = createPlatformRegistry(testConfig());
    const problems = (content: string) =>
      validateCreatePost(
        { content, platforms: ['twitter'] },
        { mode: 'now', now: new Date(), platforms: registry },
      );
    const refused = [{ field: 'content', message: 'twitter posts are limited to 280 characters' }];
    expect(problems('漢'.repeat(140))).toEqual([]);
    expect(problems('漢'.repeat(141))).toEqual(refused); // 141 characters, 282 for X
    expect(problems('🎉'.repeat(141))).toEqual(refused);
    expect(problems(`${'a'.repeat(256)} https://example.com/${'p'.repeat(300)}`)).toEqual([]);
    expect(problems(`${'a'.repeat(257)} https://example.com/${'p'.repeat(300)}`)).toEqual(refused);
  });

  it('compares a text with what X shows of it', () => {
    const posted = 'A & B <ok> at example.com and https://example.org/long/path';
    const shown = 'A &amp; B &lt;ok&gt; at https://t.co/abc and https://t.co/def';
    expect(comparableText(shown)).toBe(comparableText(posted));
    expect(comparableText(`${shown} https://t.co/media`, true)).toBe(comparableText(posted));
    expect(comparableText('A & B <ok> at example.com')).not.toBe(comparableText(posted));
  });

  it('validate: one video or up to four photos, not both', () => {
    const p = publisher();
    const draft = (mediaUrls: string[]) => ({ content: 'x', mediaUrls, platformOptions: {} });
    expect(p.validate(draft(['https://a/1.jpg', 'https://a/2.mp4']))).toHaveLength(1);
    expect(p.validate(draft(['https://a/1.mp4', 'https://a/2.mp4']))).toHaveLength(1);
    expect(p.validate(draft([1, 2, 3, 4, 5].map((n) => `https://a/${n}.jpg`)))).toHaveLength(1);
    expect(p.validate(draft([1, 2, 3, 4].map((n) => `https://a/${n}.jpg`)))).toEqual([]);
  });
});
