import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsWindow } from '../src/pinterest/metrics.ts';
import { type FakePinterest, PINTEREST_ERRORS, startFakePinterest, testConfig } from './helpers.ts';
import { metricsOf, readerFor, readPosts, resultOf } from './numbers-read.ts';

const CONNECTION = { platform: 'pinterest', externalId: '1111111111111111111' } as const;
const DAY = 86_400_000;

let fake: FakePinterest;
beforeAll(async () => {
  fake = await startFakePinterest();
});
afterAll(() => fake.close());

const config = () =>
  testConfig({ pinterest: { apiBaseUrl: fake.baseUrl, tokenBaseUrl: fake.baseUrl } });
const reader = () => readerFor('pinterest', config());
const read = (id: string, publishedAt = new Date(Date.now() - DAY)) =>
  readPosts(reader(), CONNECTION, [{ id, publishedAt }]);
const day = (time: number) => new Date(time).toISOString().slice(0, 10);

describe('pinterest numbers', () => {
  it('declares one Pin per call, impressions/saves/clicks and pins:read', () => {
    const r = reader();
    expect(r.batchSize).toBe(1);
    expect([...r.reports].sort()).toEqual(['clicks', 'impressions', 'saves']);
    expect(r.scopes).toEqual(['pins:read']);
  });

  it('maps lifetime_metrics: SAVE -> saves, OUTBOUND_CLICK -> clicks, from the publishing day', async () => {
    fake.analytics.set('p-1', { IMPRESSION: 500, SAVE: 12, PIN_CLICK: 40, OUTBOUND_CLICK: 9 });
    const published = new Date(Date.now() - 3 * DAY);
    const from = fake.requests.length;
    const result = metricsOf(await read('p-1', published), 'p-1');
    const call = fake.requests.slice(from).find((r) => r.path === '/v5/pins/p-1/analytics');
    expect(call?.headers.authorization).toBe('Bearer access-1');
    expect(call?.query).toEqual({
      start_date: day(published.getTime()),
      end_date: day(Date.now()),
      metric_types: 'IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK',
    });
    expect(result.metrics).toMatchObject({ impressions: 500, saves: 12, clicks: 9, likes: null });
    expect(result.raw).toEqual({ IMPRESSION: 500, SAVE: 12, PIN_CLICK: 40, OUTBOUND_CLICK: 9 });
  });

  it('a Pin older than 90 days is read over the last 90 days (the fake refuses more)', async () => {
    fake.analytics.set('p-2', { IMPRESSION: 7 });
    const from = fake.requests.length;
    const result = metricsOf(await read('p-2', new Date(Date.now() - 400 * DAY)), 'p-2');
    const call = fake.requests.slice(from).at(-1);
    const today = Date.parse(day(Date.now()));
    expect(call?.query.start_date).toBe(day(today - 89 * DAY));
    expect(result.metrics.impressions).toBe(7);
  });

  it('the window: UTC days, the later of the publishing day and 89 days before today', () => {
    const now = new Date('2026-05-31T23:30:00Z');
    expect(analyticsWindow(new Date('2026-05-01T22:00:00Z'), now)).toEqual({
      start: '2026-05-01',
      end: '2026-05-31',
      wholeLife: true,
    });
    expect(analyticsWindow(new Date('2025-01-01T00:00:00Z'), now)).toEqual({
      start: '2026-03-03',
      end: '2026-05-31',
      wholeLife: false,
    });
    // A clock slightly behind the publishing time still asks for a valid window.
    expect(analyticsWindow(new Date('2026-06-01T00:10:00Z'), now).start).toBe('2026-05-31');
  });

  it('a metric Pinterest leaves out is null; 0 stays 0', async () => {
    fake.analytics.set('p-3', { IMPRESSION: 0, OUTBOUND_CLICK: null });
    const { metrics } = metricsOf(await read('p-3'), 'p-3');
    expect(metrics.impressions).toBe(0);
    expect(metrics.clicks).toBeNull();
  });

  it('a deleted Pin (404) is gone', async () => {
    fake.analytics.set('p-4', {});
    fake.analytics.remove('p-4');
    expect(resultOf(await read('p-4'), 'p-4')).toMatchObject({ kind: 'gone' });
  });

  it('a 429 throttles until X-RateLimit-Reset / Retry-After', async () => {
    fake.analytics.set('p-5', {});
    fake.script({ on: 'pinAnalytics', error: PINTEREST_ERRORS.rateLimited, retryAfterSeconds: 45 });
    const before = Date.now();
    const outcome = await read('p-5');
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'pinterest_8' });
    if (outcome.kind === 'throttled') {
      const waitMs = outcome.retryAt.getTime() - before;
      expect(waitMs).toBeGreaterThanOrEqual(45_000);
      expect(waitMs).toBeLessThan(51_000);
    }
  });

  it('401 expires; 403 is unavailable (reconnect for pins:read); 5xx fails with its code', async () => {
    fake.analytics.set('p-6', {});
    fake.expireAccessToken('old-token');
    const expired = await readPosts(reader(), { ...CONNECTION, accessToken: 'old-token' }, [
      { id: 'p-6', publishedAt: new Date() },
    ]);
    expect(expired).toMatchObject({ kind: 'connection_expired' });
    fake.script({ on: 'pinAnalytics', error: PINTEREST_ERRORS.forbidden });
    const unavailable = resultOf(await read('p-6'), 'p-6');
    expect(unavailable.kind === 'unavailable' && unavailable.message).toMatch(
      /reconnect the account to grant pins:read/,
    );
    fake.script({ on: 'pinAnalytics', error: PINTEREST_ERRORS.serverError });
    expect(resultOf(await read('p-6'), 'p-6')).toMatchObject({
      kind: 'failed',
      code: 'pinterest_3',
    });
  });
});
