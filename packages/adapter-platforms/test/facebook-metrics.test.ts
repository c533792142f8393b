import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACEBOOK_ERRORS, type FakeFacebook, startFakeFacebook, testConfig } from './helpers.ts';
import { metricsOf, readerFor, readPosts, resultOf } from './numbers-read.ts';

const PAGE = '102000000000001';
const CONNECTION = { platform: 'facebook', externalId: PAGE } as const;
const FIELDS =
  'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares';

let fake: FakeFacebook;
beforeAll(async () => {
  fake = await startFakeFacebook();
});
afterAll(() => fake.close());

const reader = () =>
  readerFor(
    'facebook',
    testConfig({ facebook: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } }),
  );
const read = (...ids: string[]) =>
  readPosts(
    reader(),
    CONNECTION,
    ids.map((id) => ({ id })),
  );

describe('facebook numbers', () => {
  it('declares one post per call, likes/comments/shares and pages_read_engagement', () => {
    const r = reader();
    expect(r.batchSize).toBe(1);
    expect([...r.reports].sort()).toEqual(['comments', 'likes', 'shares']);
    expect(r.scopes).toEqual(['pages_read_engagement']);
  });

  it('reads the summaries with the Page token: reactions -> likes, comments, shares', async () => {
    const post = `${PAGE}_5001`;
    fake.engagement.set(post, { reactions: 31, comments: 6, shares: 4 });
    const from = fake.requests.length;
    const result = metricsOf(await read(post), post);
    const call = fake.requests.slice(from).find((r) => r.path === `/v21.0/${post}`);
    expect(call?.query).toMatchObject({ fields: FIELDS, access_token: 'access-1' });
    expect(result.metrics).toMatchObject({ likes: 31, comments: 6, shares: 4, views: null });
    expect(result.raw).toMatchObject({
      reactions: { summary: { total_count: 31 } },
      comments: { summary: { total_count: 6 } },
      shares: { count: 4 },
    });
  });

  it('no `shares` key (nobody shared) is 0 shares, as Facebook documents', async () => {
    const post = `${PAGE}_5002`;
    fake.engagement.set(post, { reactions: 2, comments: 0, shares: 0 });
    const result = metricsOf(await read(post), post);
    expect(result.raw).not.toHaveProperty('shares');
    expect(result.metrics).toMatchObject({ likes: 2, comments: 0, shares: 0 });
  });

  it('a video (bare id) is read without `shares`, which stays null', async () => {
    fake.engagement.set('5003', { reactions: 9, comments: 1 });
    const from = fake.requests.length;
    const result = metricsOf(await read('5003'), '5003');
    const call = fake.requests.slice(from).find((r) => r.path === '/v21.0/5003');
    expect(call?.query.fields).not.toMatch(/shares/);
    expect(result.metrics).toMatchObject({ likes: 9, comments: 1, shares: null });
  });

  it('a deleted post is gone', async () => {
    const post = `${PAGE}_5004`;
    fake.engagement.set(post, {});
    fake.engagement.remove(post);
    expect(resultOf(await read(post), post)).toMatchObject({ kind: 'gone' });
  });

  it('throttled (32) until X-Page-Usage estimated_time_to_regain_access', async () => {
    const post = `${PAGE}_5005`;
    fake.engagement.set(post, {});
    fake.script({
      path: `/${post}`,
      error: {
        code: 32,
        message: 'Page request limit reached',
        headers: { 'x-page-usage': JSON.stringify({ estimated_time_to_regain_access: 12 }) },
      },
    });
    const before = Date.now();
    const outcome = await read(post);
    expect(outcome).toMatchObject({ kind: 'throttled', code: '32' });
    if (outcome.kind === 'throttled') {
      const waitMs = outcome.retryAt.getTime() - before;
      expect(waitMs).toBeGreaterThanOrEqual(12 * 60_000);
      expect(waitMs).toBeLessThan(14 * 60_000);
    }
  });

  it('190 expires; a missing permission (10) is unavailable; 500 fails with its code', async () => {
    const post = `${PAGE}_5006`;
    fake.engagement.set(post, {});
    fake.script({ path: `/${post}`, error: FACEBOOK_ERRORS.tokenInvalid });
    expect(await read(post)).toMatchObject({ kind: 'connection_expired' });
    fake.script({
      path: `/${post}`,
      error: {
        code: 10,
        message: '(#10) This endpoint requires the pages_read_engagement permission',
      },
    });
    const unavailable = resultOf(await read(post), post);
    expect(unavailable.kind === 'unavailable' && unavailable.message).toMatch(
      /reconnect the account to grant pages_read_engagement/,
    );
    fake.script({ path: `/${post}`, error: FACEBOOK_ERRORS.unknown });
    expect(resultOf(await read(post), post)).toMatchObject({ kind: 'failed', code: '1' });
  });

  it('a post the fake published has numbers without any set', async () => {
    fake.posts.push({
      id: `${PAGE}_5007`,
      pageId: PAGE,
      message: 'hello',
      link: null,
      photoIds: [],
      videoId: null,
      createdAt: new Date(),
    });
    const { metrics } = metricsOf(await read(`${PAGE}_5007`), `${PAGE}_5007`);
    expect(metrics.likes).toBeGreaterThan(0);
  });
});
