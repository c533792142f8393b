// TikTok's numbers over real HTTP against the fake API: /v2/video/query/ by 20 video ids with
// the fields asked, a stored publish id turned into the public video id through the publish
// status first (none: unavailable), a video missing from `videos` gone, a token without
// video.list unavailable, and TikTok's refusals as batch outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIKTOK_SCOPES } from '../src/tiktok/oauth.ts';
import { type FakeTiktok, startFakeTiktok, type TiktokPublish, testConfig } from './helpers.ts';
import {
  connectionFor,
  expectRetryAround,
  itemsFor,
  readerFor,
  readWith,
  resultFor,
  resultsOf,
} from './metrics-reader-helpers.ts';

let fake: FakeTiktok;
beforeAll(async () => {
  fake = await startFakeTiktok({ processingPolls: 0 });
});
afterAll(async () => {
  await fake.close();
});

const reader = () =>
  readerFor(
    'tiktok',
    testConfig({ tiktok: { apiBaseUrl: fake.baseUrl, tokenBaseUrl: fake.baseUrl } }),
  );
const connection = (token = 'act.tiktok-reader') => connectionFor('tiktok', token);
let sequence = 0;
function video(numbers: Parameters<FakeTiktok['counts']['set']>[1] = {}): string {
  const id = String(7_400_000_000_000_000_000n + BigInt(++sequence));
  fake.counts.set(id, numbers);
  return id;
}
/** A publish as the fake keeps it (`draft`: sent to the inbox, no public id). */
function publish(draft: boolean): TiktokPublish {
  const made: TiktokPublish = {
    publishId: `v_pub_url~v2-1.${7_500_000_000_000_000_000n + BigInt(++sequence)}`,
    endpoint: draft ? 'inbox_video' : 'video',
    body: {},
    draft,
    pollsLeft: 0,
    failReason: null,
    postId: String(7_600_000_000_000_000_000n + BigInt(sequence)),
    statusFetches: 0,
  };
  fake.publishes.push(made);
  return made;
}
const calls = (from: number, path: string) =>
  fake.requests.slice(from).filter((r) => r.path === path);

describe('tiktok metrics reader', () => {
  it('asks for video.list when connecting, and declares it', () => {
    expect(TIKTOK_SCOPES).toContain('video.list');
    expect(reader().scopes).toEqual(['video.list']);
  });

  it('reads a full batch of 20 in one query and maps TikTok names to ours', async () => {
    const ids = Array.from({ length: 20 }, () => video());
    const mapped = video({ view_count: 900, like_count: 80, comment_count: 7, share_count: 6 });
    ids[0] = mapped;
    const from = fake.requests.length;
    const outcome = await readWith(reader(), connection(), itemsFor(...ids));
    const queries = calls(from, '/v2/video/query/');
    expect(queries).toHaveLength(1);
    expect(queries[0]?.method).toBe('POST');
    expect(queries[0]?.query.fields).toBe('id,view_count,like_count,comment_count,share_count');
    expect(queries[0]?.body).toEqual({ filters: { video_ids: ids } });
    expect(calls(from, '/v2/post/publish/status/fetch/')).toHaveLength(0);
    expect(resultsOf(outcome).size).toBe(20);
    expect(resultFor(outcome, mapped)).toEqual({
      kind: 'read',
      metrics: {
        views: 900,
        impressions: null,
        reach: null,
        likes: 80,
        comments: 7,
        shares: 6,
        quotes: null,
        saves: null,
        clicks: null,
      },
      raw: { id: mapped, view_count: 900, like_count: 80, comment_count: 7, share_count: 6 },
    });
    expect(reader().batchSize).toBe(20);
  });

  it('keeps a 0 as 0 and a count TikTok leaves out as null', async () => {
    const id = video({ view_count: 0, share_count: null });
    const result = resultFor(await readWith(reader(), connection(), itemsFor(id)), id);
    expect(result.kind === 'read' && result.metrics).toMatchObject({ views: 0, shares: null });
  });

  it('turns a stored publish id into the public video id first; none: unavailable', async () => {
    const published = publish(false);
    fake.counts.set(published.postId, { like_count: 11 });
    const draft = publish(true);
    const from = fake.requests.length;
    const outcome = await readWith(
      reader(),
      connection(),
      itemsFor(published.publishId, draft.publishId),
    );
    expect(calls(from, '/v2/post/publish/status/fetch/').map((c) => c.body)).toEqual([
      { publish_id: published.publishId },
      { publish_id: draft.publishId },
    ]);
    expect(calls(from, '/v2/video/query/')[0]?.body).toEqual({
      filters: { video_ids: [published.postId] },
    });
    expect(resultFor(outcome, published.publishId)).toMatchObject({
      kind: 'read',
      metrics: { likes: 11 },
    });
    expect(resultFor(outcome, draft.publishId)).toMatchObject({ kind: 'unavailable' });
  });

  it('says gone for a video missing from videos', async () => {
    const kept = video({ view_count: 5 });
    const removed = video();
    fake.counts.remove(removed);
    const outcome = await readWith(reader(), connection(), itemsFor(kept, removed));
    expect(resultFor(outcome, removed)).toMatchObject({ kind: 'gone' });
    expect(resultFor(outcome, kept)).toMatchObject({ kind: 'read', metrics: { views: 5 } });
  });

  it('says unavailable when the token was granted without video.list', async () => {
    const token = 'act.publish-only';
    fake.tokenScopes.set(token, ['user.info.basic', 'video.publish', 'video.upload']);
    const id = video();
    const outcome = await readWith(reader(), connection(token), itemsFor(id));
    expect(resultFor(outcome, id)).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('video.list'),
    });
  });

  it('waits a minute on rate_limit_exceeded', async () => {
    const id = video();
    fake.script({ error: 'rate_limit_exceeded', path: '/v2/video/query/' });
    const now = Date.now();
    const outcome = await readWith(reader(), connection(), itemsFor(id));
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded' });
    if (outcome.kind === 'throttled') expectRetryAround(outcome.retryAt, now, 60);
  });

  it('says connection_expired when TikTok refuses the token', async () => {
    const id = video();
    fake.expireAccessToken('act.expired');
    const outcome = await readWith(reader(), connection('act.expired'), itemsFor(id));
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
  });

  it("fails the batch with TikTok's code on a 5xx, never throws", async () => {
    const id = video();
    fake.script({ error: 'internal_error', path: '/v2/video/query/' });
    const outcome = await readWith(reader(), connection(), itemsFor(id));
    expect(outcome).toEqual({
      kind: 'failed',
      code: 'internal_error',
      message: 'Something went wrong. Please try again later.',
    });
  });
});
