// Bluesky's numbers over real HTTP against the fake service: app.bsky.feed.getPosts by 25 URIs
// with the connection's access JWT, the counts mapped to ours, a URI missing from `posts` gone,
// and the XRPC refusals (rate limit, token, outage) as batch outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBluesky, startFakeBluesky, testConfig } from './helpers.ts';
import {
  connectionFor,
  expectRetryAround,
  itemsFor,
  readerFor,
  readWith,
  resultFor,
  resultsOf,
} from './metrics-reader-helpers.ts';

let fake: FakeBluesky;
beforeAll(async () => {
  fake = await startFakeBluesky();
});
afterAll(async () => {
  await fake.close();
});

const reader = () =>
  readerFor('bluesky', testConfig({ bluesky: { serviceUrl: fake.baseUrl, rateLimit: 'off' } }));
const connection = () =>
  connectionFor('bluesky', fake.issueSession().accessJwt, null, fake.account.did);
let sequence = 0;
function post(numbers: Parameters<FakeBluesky['counts']['set']>[1] = {}): string {
  const uri = `at://${fake.account.did}/app.bsky.feed.post/3lmetrics${String(++sequence).padStart(4, '0')}`;
  fake.counts.set(uri, numbers);
  return uri;
}
const getPostsCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path === '/xrpc/app.bsky.feed.getPosts');

describe('bluesky metrics reader', () => {
  it('reads a full batch of 25 in one getPosts call, every URI as its own uris parameter', async () => {
    const uris = Array.from({ length: 25 }, () => post());
    const mapped = post({ likeCount: 9, repostCount: 2, replyCount: 4, quoteCount: 1 });
    uris[0] = mapped;
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection(), itemsFor(...uris));
    const calls = getPostsCalls(from);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.authorization).toMatch(/^Bearer /);
    expect(resultsOf(outcome).size).toBe(25);
    expect(resultFor(outcome, mapped)).toEqual({
      kind: 'read',
      metrics: {
        views: null,
        impressions: null,
        reach: null,
        likes: 9,
        comments: 4,
        shares: 2,
        quotes: 1,
        saves: null,
        clicks: null,
      },
      raw: { likeCount: 9, repostCount: 2, replyCount: 4, quoteCount: 1 },
    });
    // Every URI came back read: the fake saw all 25, not the last one only.
    expect([...resultsOf(outcome).values()].every((result) => result.kind === 'read')).toBe(true);
    expect(reader().batchSize).toBe(25);
  });

  it('keeps a 0 as 0 and a count Bluesky leaves out as null', async () => {
    const uri = post({ likeCount: 0, quoteCount: null });
    const result = resultFor(await readWith(reader(), connection(), itemsFor(uri)), uri);
    expect(result.kind === 'read' && result.metrics).toMatchObject({ likes: 0, quotes: null });
  });

  it('says gone for a URI missing from posts', async () => {
    const kept = post({ likeCount: 3 });
    const removed = post();
    fake.counts.remove(removed);
    const outcome = await readWith(reader(), connection(), itemsFor(kept, removed));
    expect(resultFor(outcome, removed)).toMatchObject({ kind: 'gone' });
    expect(resultFor(outcome, kept)).toMatchObject({ kind: 'read', metrics: { likes: 3 } });
  });

  it('waits until ratelimit-reset on a 429', async () => {
    const uri = post();
    const reset = Math.ceil(Date.now() / 1000) + 300;
    fake.script({
      error: {
        status: 429,
        error: 'RateLimitExceeded',
        message: 'Rate Limit Exceeded',
        headers: {
          'ratelimit-limit': '3000',
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(reset),
        },
      },
      nsid: 'app.bsky.feed.getPosts',
    });
    const now = Date.now();
    const outcome = await readWith(reader(), connection(), itemsFor(uri));
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'RateLimitExceeded' });
    if (outcome.kind === 'throttled') expectRetryAround(outcome.retryAt, now, reset - now / 1000);
  });

  it('says connection_expired when Bluesky refuses the access JWT', async () => {
    const uri = post();
    const { accessJwt } = fake.issueSession();
    fake.expireAccessToken(accessJwt);
    const outcome = await readWith(reader(), connectionFor('bluesky', accessJwt), itemsFor(uri));
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it('fails the batch with the XRPC error on a 5xx, never throws', async () => {
    const uri = post();
    fake.script({
      error: { status: 502, error: 'UpstreamFailure', message: 'Upstream Failure' },
      nsid: 'app.bsky.feed.getPosts',
    });
    const outcome = await readWith(reader(), connection(), itemsFor(uri));
    expect(outcome).toEqual({
      kind: 'failed',
      code: 'UpstreamFailure',
      message: 'Bluesky getPosts: UpstreamFailure: Upstream Failure',
    });
  });
});
