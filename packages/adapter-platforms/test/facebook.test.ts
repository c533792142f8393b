import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  FACEBOOK_ERRORS,
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
beforeAll(async () => {
  [fake, media] = await Promise.all([
    startFakeFacebook({ videoProcessingPolls: 2 }),
    startMediaServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const PAGE = '102000000000001';
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
    const call = since(from)[0];
    expect(call?.path).toBe(`/v21.0/${PAGE}/feed`);
    expect(call?.body).toMatchObject({ message: content, access_token: 'page-token' });
  });

  it('a link post with platform_options.facebook.link', async () => {
    expectPublished(
      await publisher().publish(
        request(text('Read this'), {
          platformOptions: { facebook: { link: 'https://example.com/article' } },
        }).request,
      ),
    );
    expect(fake.posts.at(-1)?.link).toBe('https://example.com/article');
  });

  it('one photo: /photos with its URL and the message, published as one post', async () => {
    const url = media.url('one.jpg', 5_000);
    const outcome = expectPublished(
      await publisher().publish(request(text('Photo'), { mediaUrls: [url] }).request),
    );
    const post = fake.posts.at(-1);
    expect(outcome.platformPostId).toBe(post?.id);
    expect(fake.photos.get(post?.photoIds[0] ?? '')).toMatchObject({ url, published: true });
  });

  it('several photos: each unpublished, then one /feed post attaching them', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`many-${n}.jpg`, 1_000 + n));
    expectPublished(await publisher().publish(request(text('Album'), { mediaUrls: urls }).request));
    const post = fake.posts.at(-1);
    expect(post?.photoIds).toHaveLength(3);
    expect(post?.photoIds.map((id) => fake.photos.get(id)?.url)).toEqual(urls);
    expect(post?.photoIds.every((id) => fake.photos.get(id)?.published === false)).toBe(true);
  });

  it('a video: /videos with file_url, then the status until ready (slow processing)', async () => {
    const from = fake.requests.length;
    const url = media.url('clip.mp4', 10_000);
    const outcome = expectPublished(
      await publisher().publish(request(text('Video'), { mediaUrls: [url] }).request),
    );
    const video = [...fake.videos.values()].at(-1);
    expect(video).toMatchObject({ fileUrl: url, pollsLeft: 0 });
    expect(outcome.platformPostId).toBe(video?.id);
    expect(since(from).filter((r) => r.path === `/v21.0/${video?.id}`)).toHaveLength(3);
  });

  it('a multi-photo post cut after one upload resumes without uploading it again', async () => {
    const urls = [1, 2].map((n) => media.url(`cut-${n}.jpg`, 900 + n));
    fake.script({ drop: true, path: `/${PAGE}/photos`, times: 1 });
    const h = request(text('Cut album'), { mediaUrls: urls });
    // The first photo upload is cut: nothing saved; the resume uploads both, then posts.
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    expectPublished(await publisher().resume(afterCrash(h).request));
    const post = fake.posts.at(-1);
    expect(post?.photoIds).toHaveLength(2);
  });
});

describe('facebook publisher: never twice', () => {
  it('an answer lost after the post was made: the resume finds it among the Page posts', async () => {
    const content = text('Lost answer');
    fake.script({ hangAfterCreate: true, path: `/${PAGE}/feed` });
    const h = request(content);
    expect(await publisher(300).publish(h.request)).toMatchObject({
      kind: 'failed',
      retryable: true,
    });
    expect(h.pendingIntent()?.step).toBe('feed');
    const count = fake.posts.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(count);
    expect(outcome.platformPostId).toBe(fake.posts.at(-1)?.id);
  });

  it('a lost video answer: found among the Page videos, polled, not sent again', async () => {
    const content = text('Lost video');
    fake.script({ hangAfterCreate: true, path: `/${PAGE}/videos` });
    const h = request(content, { mediaUrls: [media.url('lost.mp4', 2_000)] });
    await publisher(300).publish(h.request);
    const count = fake.videos.size;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.videos.size).toBe(count);
    expect(outcome.platformPostId).toBe([...fake.videos.values()].at(-1)?.id);
  });

  it('a request that never arrived is not among the posts: sent, once', async () => {
    fake.script({ drop: true, path: `/${PAGE}/feed` });
    const h = request(text('Never arrived'));
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
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
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/pages_read_engagement/);
    expect(fake.posts.length).toBe(count);
  });
});

describe('facebook publisher: errors', () => {
  it('506 duplicate: duplicate_content, permanent, Graph message kept; the intent is dropped', async () => {
    const content = text('Twice');
    expectPublished(await publisher().publish(request(content).request));
    const h = request(content);
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'duplicate_content', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/Duplicate status message/);
    expect(h.pendingIntent()).toBeNull();
  });

  it('190: the Page token is invalid and cannot be refreshed: connection_expired', async () => {
    fake.script({ error: FACEBOOK_ERRORS.sessionInvalidated, path: `/${PAGE}/feed` });
    const outcome = await publisher().publish(request(text('Expired')).request);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it('permission (200) and policy (368) errors are permanent', async () => {
    fake.script({
      error: { code: 200, message: '(#200) Permissions error' },
      path: `/${PAGE}/feed`,
    });
    expect(await publisher().publish(request(text('No perm')).request)).toMatchObject({
      code: '200',
      retryable: false,
    });
    fake.script({
      error: { code: 368, message: 'The action attempted has been deemed abusive' },
      path: `/${PAGE}/feed`,
    });
    expect(await publisher().publish(request(text('Blocked')).request)).toMatchObject({
      code: '368',
      retryable: false,
    });
  });

  it("the Page limit waits for Meta's estimated_time_to_regain_access", async () => {
    const limited = await startFakeFacebook({ postLimit: { limit: 1, windowMs: 5 * 60_000 } });
    try {
      const p = publisherFor(
        'facebook',
        testConfig({ facebook: { apiBaseUrl: limited.baseUrl, graphVersion: 'v21.0' } }),
      );
      const one = makeRequest({
        platform: 'facebook',
        content: 'one',
        externalId: PAGE,
        accessToken: 't',
      });
      expectPublished(await p.publish(one.request));
      const two = makeRequest({
        platform: 'facebook',
        content: 'two',
        externalId: PAGE,
        accessToken: 't',
      });
      const outcome = await p.publish(two.request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: '32' });
      const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      expect(at).toBeGreaterThan(Date.now() + 4 * 60_000);
      expect(at).toBeLessThan(Date.now() + 6 * 60_000);
    } finally {
      await limited.close();
    }
  });

  it('a token of another Page is refused (permission), permanently', async () => {
    fake.pageTokens.set('token-of-another-page', '999');
    const outcome = await publisher().publish(
      request(text('Wrong page'), { accessToken: 'token-of-another-page' }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: '200', retryable: false });
  });

  it('validate: one video or up to ten photos, not both; link only on text posts', () => {
    const p = publisher();
    const draft = (mediaUrls: string[]) => ({ content: 'x', mediaUrls, platformOptions: {} });
    expect(p.validate(draft(['https://a/1.jpg', 'https://a/2.mp4']))).toHaveLength(1);
    expect(
      p.validate(draft(Array.from({ length: 11 }, (_, n) => `https://a/${n}.jpg`))),
    ).toHaveLength(1);
    expect(p.validate(draft(Array.from({ length: 10 }, (_, n) => `https://a/${n}.jpg`)))).toEqual(
      [],
    );
  });
});
