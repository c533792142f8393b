import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeThreads, startFakeThreads, THREADS_ERRORS, testConfig } from './helpers.ts';
import { metricsOf, readerFor, readPosts, resultOf } from './numbers-read.ts';

const CONNECTION = { platform: 'threads', externalId: '25010000000000001' } as const;

let fake: FakeThreads;
beforeAll(async () => {
  fake = await startFakeThreads();
});
afterAll(() => fake.close());

const reader = () => readerFor('threads', testConfig({ threads: { apiBaseUrl: fake.baseUrl } }));
const read = (...ids: string[]) =>
  readPosts(
    reader(),
    CONNECTION,
    ids.map((id) => ({ id })),
  );

describe('threads numbers', () => {
  it('declares one post per call, what it fills and threads_manage_insights', () => {
    const r = reader();
    expect(r.batchSize).toBe(1);
    expect([...r.reports].sort()).toEqual(['comments', 'likes', 'quotes', 'shares', 'views']);
    expect(r.scopes).toEqual(['threads_manage_insights']);
  });

  it('maps GET /v1.0/{media}/insights: replies -> comments, reposts -> shares', async () => {
    fake.insights.set('3001', {
      views: 400,
      likes: 21,
      replies: 4,
      reposts: 3,
      quotes: 1,
      shares: 7,
    });
    const from = fake.requests.length;
    const result = metricsOf(await read('3001'), '3001');
    const call = fake.requests.slice(from).find((r) => r.path.endsWith('/insights'));
    expect(call?.path).toBe('/v1.0/3001/insights');
    expect(call?.query.metric).toBe('views,likes,replies,reposts,quotes,shares');
    expect(result.metrics).toMatchObject({
      views: 400,
      likes: 21,
      comments: 4,
      shares: 3,
      quotes: 1,
      reach: null,
      saves: null,
    });
    expect(result.raw).toEqual({
      views: 400,
      likes: 21,
      replies: 4,
      reposts: 3,
      quotes: 1,
      shares: 7,
    });
  });

  it('left-out metrics are null, zeros stay zeros', async () => {
    fake.insights.set('3002', { views: null, quotes: 0 });
    const { metrics } = metricsOf(await read('3002'), '3002');
    expect(metrics.views).toBeNull();
    expect(metrics.quotes).toBe(0);
  });

  it('a removed post is gone', async () => {
    fake.insights.set('3003', {});
    fake.insights.remove('3003');
    expect(resultOf(await read('3003'), '3003')).toMatchObject({ kind: 'gone' });
  });

  it('throttled with the wait of X-App-Usage', async () => {
    fake.insights.set('3004', {});
    fake.script({
      on: 'insights',
      error: {
        ...THREADS_ERRORS.appRateLimit,
        headers: {
          'x-app-usage': JSON.stringify({ call_count: 100, estimated_time_to_regain_access: 5 }),
        },
      },
    });
    const before = Date.now();
    const outcome = await read('3004');
    expect(outcome).toMatchObject({ kind: 'throttled', code: '4' });
    if (outcome.kind === 'throttled') {
      const waitMs = outcome.retryAt.getTime() - before;
      expect(waitMs).toBeGreaterThanOrEqual(5 * 60_000);
      expect(waitMs).toBeLessThan(6 * 60_000);
    }
  });

  it('190 expires the connection; 10 is unavailable with a reconnect message; 5xx fails', async () => {
    fake.insights.set('3005', {});
    fake.script({ on: 'insights', error: THREADS_ERRORS.tokenExpired });
    expect(await read('3005')).toMatchObject({ kind: 'connection_expired' });
    fake.script({ on: 'insights', error: THREADS_ERRORS.permission });
    const unavailable = resultOf(await read('3005'), '3005');
    expect(unavailable.kind === 'unavailable' && unavailable.message).toMatch(
      /reconnect the account to grant threads_manage_insights/,
    );
    fake.script({ on: 'insights', error: THREADS_ERRORS.serverError });
    expect(resultOf(await read('3005'), '3005')).toMatchObject({ kind: 'failed', code: '2' });
  });
});
