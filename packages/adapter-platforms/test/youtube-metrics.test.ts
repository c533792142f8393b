// YouTube's numbers over real HTTP against the fake Data API: videos.list by 50 with
// part=statistics, the string counts parsed, a hidden count null, a video missing from `items`
// gone, and Google's refusals (quota, rate, token, outage) as batch outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeYoutube, startFakeYoutube, testConfig, YOUTUBE_ERRORS } from './helpers.ts';
import {
  connectionFor,
  expectRetryAround,
  itemsFor,
  readerFor,
  readWith,
  resultFor,
  resultsOf,
} from './metrics-reader-helpers.ts';

let fake: FakeYoutube;
beforeAll(async () => {
  fake = await startFakeYoutube();
});
afterAll(async () => {
  await fake.close();
});

const reader = () =>
  readerFor(
    'youtube',
    testConfig({
      youtube: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'youtube-client-id',
        clientSecret: 'youtube-client-secret',
      },
    }),
  );
const connection = connectionFor('youtube', 'ya29.user-token');
let sequence = 0;
function video(numbers: Parameters<FakeYoutube['statistics']['set']>[1] = {}): string {
  const id = `vid-m${String(++sequence).padStart(6, '0')}`;
  fake.statistics.set(id, numbers);
  return id;
}
const listCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path === '/youtube/v3/videos');

describe('youtube metrics reader', () => {
  it('reads a full batch of 50 in one call, the string counts as numbers', async () => {
    const ids = Array.from({ length: 50 }, () => video());
    const mapped = video({ viewCount: 1234, likeCount: 56, commentCount: 7, favoriteCount: 0 });
    ids[0] = mapped;
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection, itemsFor(...ids));
    const calls = listCalls(from);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.query).toMatchObject({ part: 'statistics', id: ids.join(',') });
    expect(calls[0]?.headers.authorization).toBe('Bearer ya29.user-token');
    expect(resultsOf(outcome).size).toBe(50);
    expect(resultFor(outcome, mapped)).toEqual({
      kind: 'read',
      metrics: {
        views: 1234,
        impressions: null,
        reach: null,
        likes: 56,
        comments: 7,
        shares: null,
        quotes: null,
        saves: null,
        clicks: null,
      },
      raw: { viewCount: '1234', likeCount: '56', favoriteCount: '0', commentCount: '7' },
    });
    expect(reader().batchSize).toBe(50);
  });

  it('keeps a "0" as 0 and a hidden likeCount as null', async () => {
    const id = video({ viewCount: 0, likeCount: null });
    const result = resultFor(await readWith(reader(), connection, itemsFor(id)), id);
    expect(result.kind === 'read' && result.metrics).toMatchObject({ views: 0, likes: null });
    expect(result.kind === 'read' && 'likeCount' in result.raw).toBe(false);
  });

  it('says gone for a video missing from items', async () => {
    const kept = video({ viewCount: 10 });
    const removed = video();
    fake.statistics.remove(removed);
    const outcome = await readWith(reader(), connection, itemsFor(kept, removed));
    expect(resultFor(outcome, removed)).toMatchObject({ kind: 'gone' });
    expect(resultFor(outcome, kept)).toMatchObject({ kind: 'read', metrics: { views: 10 } });
  });

  it('waits an hour on quotaExceeded and a minute on rateLimitExceeded', async () => {
    const id = video();
    fake.script({ error: YOUTUBE_ERRORS.quotaExceeded, on: 'videos' });
    let now = Date.now();
    const quota = await readWith(reader(), connection, itemsFor(id));
    expect(quota).toMatchObject({ kind: 'throttled', code: 'quotaExceeded' });
    if (quota.kind === 'throttled') expectRetryAround(quota.retryAt, now, 3_600);
    fake.script({ error: YOUTUBE_ERRORS.rateLimitExceeded, on: 'videos' });
    now = Date.now();
    const rate = await readWith(reader(), connection, itemsFor(id));
    expect(rate).toMatchObject({ kind: 'throttled', code: 'rateLimitExceeded' });
    if (rate.kind === 'throttled') expectRetryAround(rate.retryAt, now, 60);
  });

  it('says connection_expired when Google refuses the token', async () => {
    const id = video();
    fake.expireAccessToken('ya29.expired');
    const outcome = await readWith(
      reader(),
      connectionFor('youtube', 'ya29.expired'),
      itemsFor(id),
    );
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it("fails the batch with Google's reason on a 5xx, never throws", async () => {
    const id = video();
    fake.script({ error: YOUTUBE_ERRORS.backendError, on: 'videos' });
    const outcome = await readWith(reader(), connection, itemsFor(id));
    expect(outcome).toEqual({ kind: 'failed', code: 'backendError', message: 'Backend Error' });
  });
});
