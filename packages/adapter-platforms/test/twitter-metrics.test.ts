// X's numbers over real HTTP against the fake X API: GET /2/tweets in batches of 100, X's names
// mapped to ours (null where X says nothing), non_public_metrics asked again without when X
// refuses it, Not Found posts gone, and X's refusals as batch outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeX, startFakeX, testConfig } from './helpers.ts';
import {
  connectionFor,
  expectRetryAround,
  itemsFor,
  readerFor,
  readWith,
  resultFor,
  resultsOf,
} from './metrics-reader-helpers.ts';

let fake: FakeX;
beforeAll(async () => {
  fake = await startFakeX();
});
afterAll(async () => {
  await fake.close();
});

const reader = () =>
  readerFor(
    'twitter',
    testConfig({
      twitter: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'x-client-id',
        clientSecret: 'x-client-secret',
      },
    }),
  );
const connection = connectionFor('twitter', 'x-user-token');
let sequence = 0;
/** A new post id X knows, with these numbers. */
function post(numbers: Parameters<FakeX['metrics']['numbers']['set']>[1] = {}): string {
  const id = String(1_900_000_000_000_000_000n + BigInt(++sequence));
  fake.metrics.numbers.set(id, numbers);
  return id;
}
const lookups = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path === '/2/tweets' && r.method === 'GET');

describe('twitter metrics reader', () => {
  it('reads a full batch of 100 in one call and maps X names to ours', async () => {
    const ids = Array.from({ length: 100 }, () => post());
    const mapped = post({
      like_count: 12,
      reply_count: 3,
      retweet_count: 4,
      quote_count: 1,
      bookmark_count: 2,
      impression_count: 345,
      url_link_clicks: 6,
    });
    ids[0] = mapped;
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection, itemsFor(...ids));
    const calls = lookups(from);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.query['tweet.fields']).toBe('public_metrics,non_public_metrics');
    expect(calls[0]?.headers.authorization).toBe('Bearer x-user-token');
    expect(resultsOf(outcome).size).toBe(100);
    expect(resultFor(outcome, mapped)).toEqual({
      kind: 'read',
      metrics: {
        views: null,
        impressions: 345,
        reach: null,
        likes: 12,
        comments: 3,
        shares: 4,
        quotes: 1,
        saves: 2,
        clicks: 6,
      },
      raw: {
        public_metrics: {
          like_count: 12,
          reply_count: 3,
          retweet_count: 4,
          quote_count: 1,
          bookmark_count: 2,
          impression_count: 345,
        },
        non_public_metrics: { url_link_clicks: 6, user_profile_clicks: 0 },
      },
    });
    expect(reader().batchSize).toBe(100);
  });

  it('keeps a 0 as 0 and a key X leaves out as null', async () => {
    const id = post({ like_count: 0, bookmark_count: null, impression_count: null });
    const result = resultFor(await readWith(reader(), connection, itemsFor(id)), id);
    expect(result.kind === 'read' && result.metrics).toMatchObject({
      likes: 0,
      saves: null,
      impressions: null,
    });
  });

  it('says gone for a post X no longer finds, read the others', async () => {
    const kept = post({ like_count: 5 });
    const removed = post();
    fake.metrics.numbers.remove(removed);
    const outcome = await readWith(reader(), connection, itemsFor(kept, removed));
    expect(resultFor(outcome, removed)).toMatchObject({ kind: 'gone' });
    expect(resultFor(outcome, kept)).toMatchObject({ kind: 'read', metrics: { likes: 5 } });
  });

  it("asks again without non_public_metrics for the posts X refuses it on (someone else's)", async () => {
    const own = post({ url_link_clicks: 9 });
    const theirs = post({ like_count: 7, url_link_clicks: 9 });
    fake.metrics.authored.set(theirs, { authorId: '42', createdAt: new Date() });
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection, itemsFor(own, theirs));
    const calls = lookups(from);
    expect(calls.map((c) => [c.query.ids, c.query['tweet.fields']])).toEqual([
      [`${own},${theirs}`, 'public_metrics,non_public_metrics'],
      [theirs, 'public_metrics'],
    ]);
    expect(resultFor(outcome, own)).toMatchObject({ kind: 'read', metrics: { clicks: 9 } });
    expect(resultFor(outcome, theirs)).toMatchObject({
      kind: 'read',
      metrics: { likes: 7, clicks: null },
    });
  });

  it('asks again without non_public_metrics when X refuses the call for it (403)', async () => {
    const id = post({ like_count: 8, url_link_clicks: 2 });
    fake.metrics.nonPublic = 'forbidden';
    try {
      const from = fake.requests.length;
      const outcome = await readWith(reader(), connection, itemsFor(id));
      expect(lookups(from).map((c) => c.query['tweet.fields'])).toEqual([
        'public_metrics,non_public_metrics',
        'public_metrics',
      ]);
      expect(resultFor(outcome, id)).toMatchObject({
        kind: 'read',
        metrics: { likes: 8, clicks: null },
      });
    } finally {
      fake.metrics.nonPublic = 'own';
    }
  });

  it('waits until x-rate-limit-reset on a 429', async () => {
    const id = post();
    const reset = Math.ceil(Date.now() / 1000) + 600;
    fake.script({
      error: { status: 429, title: 'Too Many Requests', detail: 'Too Many Requests' },
      path: '/2/tweets',
      headers: { 'x-rate-limit-reset': String(reset), 'x-rate-limit-remaining': '0' },
    });
    const now = Date.now();
    const outcome = await readWith(reader(), connection, itemsFor(id));
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded' });
    if (outcome.kind === 'throttled') expectRetryAround(outcome.retryAt, now, reset - now / 1000);
  });

  it('says connection_expired when X refuses the token', async () => {
    const id = post();
    fake.expireAccessToken('x-expired-token');
    const outcome = await readWith(
      reader(),
      connectionFor('twitter', 'x-expired-token'),
      itemsFor(id),
    );
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it('fails the batch with X code and words on a 5xx, never throws', async () => {
    const id = post();
    fake.script({
      error: { status: 503, title: 'Service Unavailable', detail: 'Service Unavailable' },
      path: '/2/tweets',
    });
    const outcome = await readWith(reader(), connection, itemsFor(id));
    expect(outcome).toEqual({
      kind: 'failed',
      code: 'http_503',
      message: 'X post lookup: Service Unavailable',
    });
  });
});
