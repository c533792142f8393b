// Mastodon's numbers over real HTTP against the fake instance: GET /api/v1/statuses/:id one
// status a call on the connection's instance, the counts mapped to ours, a 404 gone, a token
// without read:statuses answered by asking without a token, and the instance's refusals as
// batch outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeMastodon, startFakeMastodon, testConfig } from './helpers.ts';
import {
  connectionFor,
  expectRetryAround,
  itemsFor,
  readerFor,
  readWith,
  resultFor,
} from './metrics-reader-helpers.ts';

let fake: FakeMastodon;
beforeAll(async () => {
  fake = await startFakeMastodon();
});
afterAll(async () => {
  await fake.close();
});

const reader = () => readerFor('mastodon', testConfig());
const connection = (token = 'mastodon-reader-token') =>
  connectionFor('mastodon', token, { instance: fake.baseUrl, maxCharacters: 500 });
let sequence = 0;
function status(numbers: Parameters<FakeMastodon['counts']['set']>[1] = {}): string {
  const id = String(120_000_000_000_000_000n + BigInt(++sequence));
  fake.counts.set(id, numbers);
  return id;
}
const statusCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path.startsWith('/api/v1/statuses/'));

describe('mastodon metrics reader', () => {
  it('reads one status a call and maps Mastodon names to ours', async () => {
    const id = status({ favourites_count: 5, reblogs_count: 2, replies_count: 1 });
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection(), itemsFor(id));
    const calls = statusCalls(from);
    expect(calls.map((c) => [c.method, c.path, c.headers.authorization])).toEqual([
      ['GET', `/api/v1/statuses/${id}`, 'Bearer mastodon-reader-token'],
    ]);
    expect(resultFor(outcome, id)).toEqual({
      kind: 'read',
      metrics: {
        views: null,
        impressions: null,
        reach: null,
        likes: 5,
        comments: 1,
        shares: 2,
        quotes: null,
        saves: null,
        clicks: null,
      },
      raw: { favourites_count: 5, reblogs_count: 2, replies_count: 1 },
    });
    expect(reader().batchSize).toBe(1);
  });

  it('keeps a 0 as 0 and a count Mastodon leaves out as null', async () => {
    const id = status({ favourites_count: 0, replies_count: null });
    const result = resultFor(await readWith(reader(), connection(), itemsFor(id)), id);
    expect(result.kind === 'read' && result.metrics).toMatchObject({ likes: 0, comments: null });
  });

  it('says gone when the instance answers 404', async () => {
    const id = status();
    fake.counts.remove(id);
    const outcome = await readWith(reader(), connection(), itemsFor(id));
    expect(resultFor(outcome, id)).toMatchObject({ kind: 'gone' });
  });

  it('asks again without a token when the token may not read statuses (403)', async () => {
    const token = 'mastodon-publish-only';
    fake.tokenScopes.set(token, ['read:accounts', 'write:statuses', 'write:media']);
    const id = status({ favourites_count: 4 });
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection(token), itemsFor(id));
    expect(statusCalls(from).map((c) => c.headers.authorization)).toEqual([
      `Bearer ${token}`,
      undefined,
    ]);
    expect(resultFor(outcome, id)).toMatchObject({ kind: 'read', metrics: { likes: 4 } });

    const hidden = status();
    fake.statuses.push({
      id: hidden,
      status: 'followers only',
      mediaIds: [],
      inReplyToId: null,
      visibility: 'private',
      idempotencyKey: null,
      url: `${fake.baseUrl}/@fake/${hidden}`,
    });
    const unseen = await readWith(reader(), connection(token), itemsFor(hidden));
    expect(resultFor(unseen, hidden)).toMatchObject({ kind: 'unavailable' });
  });

  it('waits until X-RateLimit-Reset on a 429', async () => {
    const id = status();
    const reset = new Date(Date.now() + 240_000);
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
      path: `/api/v1/statuses/${id}`,
    });
    const now = Date.now();
    const outcome = await readWith(reader(), connection(), itemsFor(id));
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limited' });
    if (outcome.kind === 'throttled') expectRetryAround(outcome.retryAt, now, 240);
  });

  it('says connection_expired when the instance refuses the token', async () => {
    const id = status();
    fake.expireAccessToken('mastodon-revoked');
    const outcome = await readWith(reader(), connection('mastodon-revoked'), itemsFor(id));
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it('fails the batch on a 5xx, and without an instance, never throws', async () => {
    const id = status();
    fake.script({
      error: { status: 503, error: 'Service Unavailable' },
      path: `/api/v1/statuses/${id}`,
    });
    expect(await readWith(reader(), connection(), itemsFor(id))).toEqual({
      kind: 'failed',
      code: 'http_503',
      message: 'Mastodon status: Service Unavailable',
    });
    const nowhere = connectionFor('mastodon', 'mastodon-reader-token', null);
    expect(await readWith(reader(), nowhere, itemsFor(id))).toMatchObject({
      kind: 'failed',
      code: 'instance_unknown',
    });
  });
});
