import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeInstagram, INSTAGRAM_ERRORS, startFakeInstagram, testConfig } from './helpers.ts';
import { metricsOf, readerFor, readPosts, resultOf } from './numbers-read.ts';

const IG_USER = '17841400000000001';
const CONNECTION = { platform: 'instagram', externalId: IG_USER } as const;

let fake: FakeInstagram;
beforeAll(async () => {
  fake = await startFakeInstagram();
});
afterAll(() => fake.close());

const reader = () =>
  readerFor(
    'instagram',
    testConfig({ instagram: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } }),
  );
const read = (...ids: string[]) =>
  readPosts(
    reader(),
    CONNECTION,
    ids.map((id) => ({ id })),
  );
const insightCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path.endsWith('/insights'));

describe('instagram numbers', () => {
  it('declares one post per call, what it fills and the insights scope', () => {
    const r = reader();
    expect(r.batchSize).toBe(1);
    expect([...r.reports].sort()).toEqual(
      ['comments', 'likes', 'reach', 'saves', 'shares', 'views'].sort(),
    );
    expect(r.scopes).toEqual(['instagram_business_manage_insights']);
  });

  it('maps GET /{media}/insights: saved -> saves, raw in Instagram names', async () => {
    fake.insights.set('1801', {
      views: 120,
      reach: 90,
      likes: 14,
      comments: 3,
      shares: 2,
      saved: 5,
    });
    const from = fake.requests.length;
    const outcome = await read('1801');
    const [call] = insightCalls(from);
    expect(call?.path).toBe('/v21.0/1801/insights');
    expect(call?.query).toMatchObject({
      metric: 'views,reach,likes,comments,shares,saved',
      access_token: 'access-1',
    });
    const result = metricsOf(outcome, '1801');
    expect(result.metrics).toEqual({
      views: 120,
      impressions: null,
      reach: 90,
      likes: 14,
      comments: 3,
      shares: 2,
      quotes: null,
      saves: 5,
      clicks: null,
    });
    expect(result.raw).toEqual({
      views: 120,
      reach: 90,
      likes: 14,
      comments: 3,
      shares: 2,
      saved: 5,
    });
  });

  it('a metric Instagram leaves out is null, a 0 stays 0', async () => {
    fake.insights.set('1802', { views: 0, saved: null, shares: null });
    const { metrics } = metricsOf(await read('1802'), '1802');
    expect(metrics.views).toBe(0);
    expect(metrics.saves).toBeNull();
    expect(metrics.shares).toBeNull();
    expect(metrics.likes).toEqual(expect.any(Number));
  });

  it('a media that no longer exists (100/33) is gone; the others of the batch are read', async () => {
    fake.insights.set('1803', { likes: 1 });
    fake.insights.remove('1803');
    fake.insights.set('1804', { likes: 4 });
    const outcome = await read('1803', '1804');
    expect(resultOf(outcome, '1803')).toMatchObject({ kind: 'gone' });
    expect(metricsOf(outcome, '1804').metrics.likes).toBe(4);
  });

  it('a media it never published is gone too', async () => {
    expect(resultOf(await read('999'), '999')).toMatchObject({
      kind: 'gone',
      message: expect.stringMatching(/does not exist/),
    });
  });

  it('throttled (code 4) with the wait Meta names in its usage header', async () => {
    fake.insights.set('1805', {});
    fake.script({
      on: 'insights',
      error: {
        ...INSTAGRAM_ERRORS.appRateLimit,
        headers: {
          'x-business-use-case-usage': JSON.stringify({
            [IG_USER]: [
              { type: 'instagram', call_count: 100, estimated_time_to_regain_access: 30 },
            ],
          }),
        },
      },
    });
    const before = Date.now();
    const outcome = await read('1805');
    expect(outcome.kind).toBe('throttled');
    if (outcome.kind !== 'throttled') return;
    expect(outcome.code).toBe('4');
    const waitMs = outcome.retryAt.getTime() - before;
    expect(waitMs).toBeGreaterThanOrEqual(30 * 60_000);
    expect(waitMs).toBeLessThan(34 * 60_000);
  });

  it("throttled (code 17) without a usage header waits Meta's default", async () => {
    fake.insights.set('1806', {});
    fake.script({ on: 'insights', error: INSTAGRAM_ERRORS.userRateLimit });
    const before = Date.now();
    const outcome = await read('1806');
    expect(outcome).toMatchObject({ kind: 'throttled', code: '17' });
    if (outcome.kind === 'throttled') {
      expect(outcome.retryAt.getTime() - before).toBeGreaterThanOrEqual(10 * 60_000);
    }
  });

  it('a refused token (190) expires the connection', async () => {
    fake.expireAccessToken('expired-token');
    const outcome = await readPosts(reader(), { ...CONNECTION, accessToken: 'expired-token' }, [
      { id: '1807' },
    ]);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it('a token without the insights permission (code 10): unavailable, reconnect to grant it', async () => {
    fake.insights.set('1808', {});
    fake.script({ on: 'insights', error: INSTAGRAM_ERRORS.permission });
    const result = resultOf(await read('1808'), '1808');
    expect(result.kind).toBe('unavailable');
    expect(result.kind === 'unavailable' && result.message).toMatch(
      /reconnect the account to grant instagram_business_manage_insights/,
    );
  });

  it("a 5xx or an unknown error is a failed read with Instagram's code, never a throw", async () => {
    fake.insights.set('1809', {});
    fake.script({
      on: 'insights',
      error: { code: 2, message: 'Service temporarily unavailable', status: 503 },
    });
    expect(resultOf(await read('1809'), '1809')).toEqual({
      kind: 'failed',
      code: '2',
      message: 'Service temporarily unavailable',
    });
    fake.script({ on: 'insights', drop: true });
    expect(resultOf(await read('1809'), '1809')).toMatchObject({
      kind: 'failed',
      code: 'network_error',
    });
  });
});
