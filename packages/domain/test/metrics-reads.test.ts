// The worker's read pass over published posts' numbers: due reads claimed, read in the
// platform's batches on the connection's own read budget, stored as snapshots with the next
// scheduled read, and `post.metrics_updated` sent when numbers changed. A platform's refusal
// never fails anything: the target shows `stale` (or `gone`, `unavailable`) with the reason.
import { describe, expect, it } from 'vitest';
import {
  createMemoryPacer,
  createPost,
  createWebhook,
  type MetricsBatchOutcome,
  type MetricsItemResult,
  type MetricsReadRequest,
  type MetricValues,
  noMetrics,
  type PlatformMetricsReader,
  PUBLISH_GUARD_MS,
  processPublishJob,
  readDueMetrics,
  readMetricsRound,
  readPaceKey,
  sandboxMetrics,
  sweepOldSnapshots,
} from '../src/index.ts';
import {
  createTestDeps,
  published,
  seedConnection,
  seedUser,
  type TestDeps,
} from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const HOUR = 3_600_000;

/** A reader answering from a script; records what it was asked. */
function scriptedReader(
  batchSize: number,
  answer: (items: MetricsReadRequest['items']) => MetricsBatchOutcome,
) {
  const calls: MetricsReadRequest[] = [];
  const reader: PlatformMetricsReader = {
    batchSize,
    reports: ['views', 'likes'],
    scopes: ['read_stats'],
    read: async (request) => {
      calls.push(request);
      return answer(request.items);
    },
  };
  return { reader, calls };
}

const numbers = (views: number, likes: number | null): MetricValues => ({
  ...noMetrics(),
  views,
  likes,
});

/** Each post of the request answered by `byId(its platform post id)`, keyed by target. */
function readAll(
  items: MetricsReadRequest['items'],
  byId: (platformPostId: string) => MetricsItemResult,
): MetricsBatchOutcome {
  return {
    kind: 'read',
    results: new Map(items.map((item) => [item.targetId, byId(item.platformPostId)] as const)),
  };
}

async function publishedPosts(deps: TestDeps, count: number, options: { sandbox?: boolean } = {}) {
  const alice = await seedUser(deps);
  const connection = await seedConnection(deps, alice.user.id, 'youtube', {
    sandbox: options.sandbox ?? false,
    scopes: ['upload', 'read_stats'],
  });
  const posts = [];
  for (let i = 0; i < count; i++) {
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: `post ${i}`,
          social_account_ids: [connection.id],
          media_urls: ['https://cdn.example.com/a.mp4'],
        },
        'now',
      ),
    );
    deps.platforms.publisher('youtube').script(published(`yt-${i}`));
    await processPublishJob(deps, post.id, jobCtx());
    posts.push(post);
  }
  return { alice, connection, posts };
}

/** The target id of each track, by platform post id. */
async function tracksOf(deps: TestDeps, postIds: string[]) {
  const all = await Promise.all(postIds.map((id) => deps.repos.metrics.listByPost(id)));
  return all.flat();
}

describe('the metrics read pass', () => {
  it('a published target is followed from its publication: first read due about an hour later', async () => {
    const deps = createTestDeps();
    const { posts } = await publishedPosts(deps, 1);
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track?.state).toBe('pending');
    expect(track?.platformPostId).toBe('yt-0');
    const delay = (track?.dueAt?.getTime() ?? 0) - (track?.publishedAt.getTime() ?? 0);
    expect(delay).toBeGreaterThanOrEqual(0.9 * HOUR);
    expect(delay).toBeLessThanOrEqual(1.1 * HOUR);
    expect((await readDueMetrics(deps, new AbortController().signal)).claimed).toBe(0);
  });

  it('reads due targets in batches, stores snapshots and plans the next read', async () => {
    const deps = createTestDeps();
    const { reader, calls } = scriptedReader(2, (ids) =>
      readAll(ids, (id) => ({
        kind: 'read',
        metrics: numbers(Number(id.slice(3)) + 10, null),
        raw: { viewCount: String(Number(id.slice(3)) + 10) },
      })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 3);
    deps.clock.advance(1.2 * HOUR);
    const report = await readDueMetrics(deps, new AbortController().signal);
    expect(report).toMatchObject({ claimed: 3, fresh: 3, stale: 0 });
    expect(calls.map((call) => call.items.length)).toEqual([2, 1]);
    expect(calls[0]?.connection.accessToken).toBe('token-youtube');
    const tracks = await tracksOf(
      deps,
      posts.map((post) => post.id),
    );
    for (const track of tracks) {
      expect(track.state).toBe('fresh');
      expect(track.step).toBe(1);
      expect(track.metrics?.likes).toBeNull();
      const next = (track.dueAt?.getTime() ?? 0) - track.publishedAt.getTime();
      expect(next).toBeGreaterThanOrEqual(5.4 * HOUR);
      expect(next).toBeLessThanOrEqual(6.6 * HOUR);
    }
    expect(tracks.map((track) => track.metrics?.views).sort()).toEqual([10, 11, 12]);
    const history = await deps.repos.metrics.history(posts[0]?.id ?? '', null, { limit: 10 });
    expect(history).toHaveLength(1);
    expect(history[0]?.raw).toEqual({ viewCount: '10' });
    // Nothing is due again until the next offset.
    expect((await readDueMetrics(deps, new AbortController().signal)).claimed).toBe(0);
  });

  it('walks the whole schedule, then stops', async () => {
    const deps = createTestDeps();
    const { reader, calls } = scriptedReader(10, (ids) =>
      readAll(ids, () => ({ kind: 'read', metrics: numbers(1, 1), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 1);
    // Each read at its due time: every offset of the schedule is read once, in order.
    for (let round = 0; round < 20; round++) {
      const [due] = await tracksOf(deps, [posts[0]?.id ?? '']);
      if (!due?.dueAt) break;
      deps.clock.set(due.dueAt);
      await readDueMetrics(deps, new AbortController().signal);
    }
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(calls).toHaveLength(6);
    expect(track?.step).toBe(6);
    expect(track?.dueAt).toBeNull();
  });

  it('a failed read keeps the older numbers (stale, with the reason); a 404 is gone for good', async () => {
    const deps = createTestDeps();
    let round = 0;
    const { reader } = scriptedReader(10, (ids) => {
      round++;
      if (round === 1)
        return readAll(ids, () => ({ kind: 'read', metrics: numbers(5, 2), raw: {} }));
      return readAll(ids, (id) =>
        id === 'yt-0'
          ? { kind: 'failed', code: 'backendError', message: 'YouTube had a problem' }
          : { kind: 'gone', message: 'the video no longer exists' },
      );
    });
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 2);
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    deps.clock.advance(6 * HOUR);
    const report = await readDueMetrics(deps, new AbortController().signal);
    expect(report).toMatchObject({ claimed: 2, stale: 1, gone: 1 });
    const [stale] = await tracksOf(deps, [posts[0]?.id ?? '']);
    const [gone] = await tracksOf(deps, [posts[1]?.id ?? '']);
    expect(stale).toMatchObject({ state: 'stale', error: 'backendError: YouTube had a problem' });
    expect(stale?.metrics).toEqual(numbers(5, 2));
    expect(stale?.dueAt).not.toBeNull();
    expect(gone).toMatchObject({ state: 'gone', dueAt: null, error: 'the video no longer exists' });
  });

  it('a reader that throws is a stale read, never an error of the pass', async () => {
    const deps = createTestDeps();
    deps.platforms.setMetricsReader('youtube', {
      batchSize: 5,
      reports: ['views'],
      scopes: [],
      read: async () => {
        throw new Error('socket hang up');
      },
    });
    const { posts } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    expect(await readDueMetrics(deps, new AbortController().signal)).toMatchObject({ stale: 1 });
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track?.error).toBe('internal_error: socket hang up');
  });

  it("the platform's slow-down moves the reads to its time without spending a step", async () => {
    const deps = createTestDeps();
    const retryAt = new Date(Date.parse('2026-01-01T03:00:00Z'));
    const { reader } = scriptedReader(10, () => ({
      kind: 'throttled',
      code: 'quotaExceeded',
      message: 'daily quota',
      retryAt,
    }));
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    expect(await readDueMetrics(deps, new AbortController().signal)).toMatchObject({
      postponed: 1,
    });
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track).toMatchObject({ state: 'pending', step: 0, dueAt: retryAt });
  });

  it('a refused token expires the connection (its event) and leaves the numbers stale', async () => {
    const deps = createTestDeps();
    const { reader } = scriptedReader(10, () => ({
      kind: 'connection_expired',
      message: 'token revoked',
    }));
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts, connection } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    expect((await deps.repos.socialAccounts.findById(connection.id))?.status).toBe('expired');
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track).toMatchObject({ state: 'stale', error: 'connection_expired: token revoked' });
  });

  it('a connection made without the read scope is told to reconnect; the platform is not called', async () => {
    const deps = createTestDeps();
    const { reader, calls } = scriptedReader(10, () => ({
      kind: 'failed',
      code: 'x',
      message: 'x',
    }));
    deps.platforms.setMetricsReader('youtube', { ...reader, scopes: ['read_stats', 'insights'] });
    const { posts } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    expect(calls).toHaveLength(0);
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track?.state).toBe('unavailable');
    expect(track?.error).toMatch(/without insights.*reconnect the account/);
  });

  it('a platform without a reader: unavailable, saying so', async () => {
    const deps = createTestDeps();
    const { posts } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(track).toMatchObject({
      state: 'unavailable',
      error: 'numbers are not read for youtube posts',
    });
  });

  it('reads on their own budget: out of it, the batch waits for its slot, publishing untouched', async () => {
    const deps = createTestDeps();
    const pacer = createMemoryPacer();
    deps.pacing = {
      pacer,
      limitOf: () => ({ count: 5, windowMs: HOUR }),
      readLimitOf: () => ({ count: 1, windowMs: HOUR }),
    };
    const { reader, calls } = scriptedReader(1, (ids) =>
      readAll(ids, () => ({ kind: 'read', metrics: numbers(3, 1), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { connection } = await publishedPosts(deps, 2);
    deps.clock.advance(1.2 * HOUR);
    const report = await readDueMetrics(deps, new AbortController().signal);
    expect(report).toMatchObject({ claimed: 2, fresh: 1, postponed: 1 });
    expect(calls).toHaveLength(1);
    const now = deps.clock.now();
    const reads = await pacer.state(readPaceKey(connection), { count: 1, windowMs: HOUR }, now);
    expect(reads.remaining).toBe(0);
    // Publishing's budget is untouched by the reads.
    const publishing = await pacer.state(
      `youtube:${connection.id}`,
      { count: 5, windowMs: HOUR },
      now,
    );
    expect(publishing.remaining).toBe(5);
  });

  it('sandbox targets get made-up numbers that grow with age; the platform is never called', async () => {
    const deps = createTestDeps();
    const { reader, calls } = scriptedReader(10, () => ({
      kind: 'failed',
      code: 'x',
      message: 'x',
    }));
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 1, { sandbox: true });
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    deps.clock.advance(6 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    expect(calls).toHaveLength(0);
    const history = await deps.repos.metrics.history(posts[0]?.id ?? '', null, { limit: 10 });
    expect(history).toHaveLength(2);
    expect(history.every((snapshot) => snapshot.sandbox)).toBe(true);
    const [first, second] = history.map((snapshot) => snapshot.metrics);
    expect(first?.views).toBeGreaterThan(0);
    expect(second?.views).toBeGreaterThan(first?.views ?? 0);
    // Only what the platform reports is set.
    expect(second?.likes).not.toBeNull();
    expect(second?.clicks).toBeNull();
  });

  it('sandbox numbers are the same for the same target and age', () => {
    const at = new Date('2026-01-02T00:00:00Z');
    const published = new Date('2026-01-01T00:00:00Z');
    expect(sandboxMetrics('t-1', published, at)).toEqual(sandboxMetrics('t-1', published, at));
    expect(sandboxMetrics('t-1', published, published).metrics.views).toBe(0);
  });

  it('post.metrics_updated goes to subscribed webhooks when numbers change, not when they stay', async () => {
    const deps = createTestDeps();
    const { reader } = scriptedReader(10, (ids) =>
      readAll(ids, () => ({ kind: 'read', metrics: numbers(7, 3), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { alice, posts } = await publishedPosts(deps, 1);
    const url = 'https://hooks.example.com/in';
    unwrap(await createWebhook(deps, alice.ctx, { url, events: ['post.metrics_updated'] }));
    unwrap(await createWebhook(deps, alice.ctx, { url, events: ['post.published'] }));
    const before = deps.store.tables.deliveries.size;
    deps.clock.advance(1.2 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    const created = [...deps.store.tables.deliveries.values()].slice(before);
    expect(created).toHaveLength(1);
    const payload = JSON.parse(created[0]?.payload ?? '{}');
    const [track] = await tracksOf(deps, [posts[0]?.id ?? '']);
    expect(payload).toEqual({
      event: 'post.metrics_updated',
      account_id: alice.user.id,
      post_id: posts[0]?.id,
      timestamp: deps.clock.now().toISOString(),
      data: {
        targets: [{ target_id: track?.targetId, platform: 'youtube', metrics: numbers(7, 3) }],
      },
      event_id: expect.stringMatching(UUID),
    });
    deps.clock.advance(6 * HOUR);
    await readDueMetrics(deps, new AbortController().signal);
    expect(deps.store.tables.deliveries.size).toBe(before + 1);
  });
});

describe('the metrics round', () => {
  it('reads pass after pass until no full batch is due', async () => {
    const deps = createTestDeps({ settings: { metricsPassSize: 2 } });
    const { reader, calls } = scriptedReader(10, (items) =>
      readAll(items, () => ({ kind: 'read', metrics: numbers(1, 1), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    await publishedPosts(deps, 5);
    deps.clock.advance(1.2 * HOUR);
    const round = await readMetricsRound(deps, new AbortController().signal, 20);
    expect(round).toMatchObject({ claimed: 5, fresh: 5 });
    expect(calls.length).toBeGreaterThanOrEqual(3);
  });

  it('gives way to a post about to publish: nothing is read while one is due', async () => {
    const deps = createTestDeps();
    const { reader, calls } = scriptedReader(10, (items) =>
      readAll(items, () => ({ kind: 'read', metrics: numbers(1, 1), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { alice, connection } = await publishedPosts(deps, 1);
    deps.clock.advance(1.2 * HOUR);
    const soon = new Date(deps.clock.now().getTime() + PUBLISH_GUARD_MS / 2);
    const waiting = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'soon',
          social_account_ids: [connection.id],
          media_urls: ['https://cdn.example.com/b.mp4'],
          scheduled_at: soon.toISOString(),
        },
        'scheduled',
      ),
    );
    expect((await readMetricsRound(deps, new AbortController().signal, 20)).claimed).toBe(0);
    expect(calls).toHaveLength(0);
    deps.platforms.publisher('youtube').script(published('yt-soon'));
    deps.clock.set(soon);
    await processPublishJob(deps, waiting.id, jobCtx());
    expect((await readMetricsRound(deps, new AbortController().signal, 20)).claimed).toBe(1);
  });
});

describe('snapshot retention', () => {
  it('deletes snapshots older than METRICS_RETENTION_DAYS, keeps the latest numbers on the track', async () => {
    const deps = createTestDeps({ settings: { metricsRetentionMs: 10 * 24 * HOUR } });
    const { reader } = scriptedReader(10, (items) =>
      readAll(items, () => ({ kind: 'read', metrics: numbers(9, 1), raw: {} })),
    );
    deps.platforms.setMetricsReader('youtube', reader);
    const { posts } = await publishedPosts(deps, 1);
    const postId = posts[0]?.id ?? '';
    for (const hours of [1.2, 6.6, 26.4]) {
      deps.clock.set(new Date(Date.parse('2026-01-01T00:00:00Z') + hours * HOUR));
      await readDueMetrics(deps, new AbortController().signal);
    }
    expect(await deps.repos.metrics.history(postId, null, { limit: 10 })).toHaveLength(3);
    deps.clock.set(new Date(Date.parse('2026-01-01T00:00:00Z') + (10 * 24 + 7) * HOUR));
    expect(await sweepOldSnapshots(deps)).toBe(2);
    const kept = await deps.repos.metrics.history(postId, null, { limit: 10 });
    expect(kept).toHaveLength(1);
    const [track] = await tracksOf(deps, [postId]);
    expect(track?.metrics).toEqual(numbers(9, 1));
  });
});
