// What the API asks of a post's numbers: the latest with totals, a debounced refresh (409 for
// a post with nothing published), the history a page at a time, and the daily sums' range.
import { describe, expect, it } from 'vitest';
import {
  createPost,
  getDailyAnalytics,
  getMetricsHistory,
  getPostMetrics,
  nextScheduledRead,
  noMetrics,
  processPublishJob,
  readDueMetrics,
  refreshPostMetrics,
  sumMetrics,
} from '../src/index.ts';
import { createTestDeps, published, seedConnection, seedUser } from '../src/testing/index.ts';
import { errorOf, jobCtx, unwrap } from './support.ts';

const HOUR = 3_600_000;

async function sandboxPost(deps: ReturnType<typeof createTestDeps>) {
  const alice = await seedUser(deps);
  const connection = await seedConnection(deps, alice.user.id, 'youtube', { sandbox: true });
  const input = {
    content: 'hello',
    social_account_ids: [connection.id],
    media_urls: ['https://cdn.example.com/a.mp4'],
  };
  const post = unwrap(await createPost(deps, alice.ctx, input, 'now'));
  deps.platforms.publisher('youtube').script(published('yt-1'));
  await processPublishJob(deps, post.id, jobCtx());
  return { alice, connection, post };
}

describe('post metrics', () => {
  it('totals: each metric summed over the targets that report it, null when none does', () => {
    const a = { ...noMetrics(), views: 3, likes: null };
    const b = { ...noMetrics(), views: 4, likes: 2 };
    expect(sumMetrics([a, b, null])).toEqual({ ...noMetrics(), views: 7, likes: 2 });
    expect(sumMetrics([])).toEqual(noMetrics());
  });

  it('refresh makes the targets due now, once per METRICS_MIN_REFRESH_S', async () => {
    const deps = createTestDeps();
    const { alice, post } = await sandboxPost(deps);
    const before = unwrap(await getPostMetrics(deps, alice.actor, post.id));
    expect(before.targets[0]?.state).toBe('pending');
    unwrap(await refreshPostMetrics(deps, alice.actor, post.id));
    expect((await readDueMetrics(deps, new AbortController().signal)).fresh).toBe(1);
    deps.clock.advance(30_000);
    unwrap(await refreshPostMetrics(deps, alice.actor, post.id));
    expect((await readDueMetrics(deps, new AbortController().signal)).claimed).toBe(0);
    deps.clock.advance(31_000);
    unwrap(await refreshPostMetrics(deps, alice.actor, post.id));
    expect((await readDueMetrics(deps, new AbortController().signal)).claimed).toBe(1);
    const after = unwrap(await getPostMetrics(deps, alice.actor, post.id));
    expect(after.totals.views).toBe(after.targets[0]?.metrics?.views);
  });

  it('refresh of a post with nothing published: 409 post_not_published, saying why', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const connection = await seedConnection(deps, alice.user.id, 'youtube');
    const input = {
      content: 'later',
      social_account_ids: [connection.id],
      media_urls: ['https://cdn.example.com/a.mp4'],
      scheduled_at: '2026-02-01T00:00:00Z',
    };
    const post = unwrap(await createPost(deps, alice.ctx, input, 'scheduled'));
    const error = errorOf(await refreshPostMetrics(deps, alice.actor, post.id));
    expect(error).toEqual({
      code: 'post_not_published',
      message: 'the post is scheduled: it has no published target yet',
    });
  });

  it("another account's post is not found", async () => {
    const deps = createTestDeps();
    const { post } = await sandboxPost(deps);
    const bob = await seedUser(deps, 'bob@example.com');
    expect(errorOf(await getPostMetrics(deps, bob.actor, post.id)).code).toBe('not_found');
    expect(errorOf(await refreshPostMetrics(deps, bob.actor, post.id)).code).toBe('not_found');
  });

  it('history: oldest first, a page at a time, with a cursor', async () => {
    const deps = createTestDeps();
    const { alice, post } = await sandboxPost(deps);
    for (let i = 0; i < 3; i++) {
      deps.clock.advance(2 * 60_000);
      unwrap(await refreshPostMetrics(deps, alice.actor, post.id));
      await readDueMetrics(deps, new AbortController().signal);
    }
    const first = unwrap(await getMetricsHistory(deps, alice.actor, post.id, { limit: 2 }));
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = unwrap(
      await getMetricsHistory(deps, alice.actor, post.id, {
        limit: 2,
        cursor: first.nextCursor ?? '',
      }),
    );
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const times = [...first.items, ...second.items].map((item) => item.takenAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const bad = errorOf(
      await getMetricsHistory(deps, alice.actor, post.id, { limit: 0, cursor: 'x!' }),
    );
    expect(bad.code).toBe('validation_failed');
  });

  it('daily: at most 366 days, in order, dates only', async () => {
    const deps = createTestDeps();
    const { alice, post } = await sandboxPost(deps);
    unwrap(await refreshPostMetrics(deps, alice.actor, post.id));
    await readDueMetrics(deps, new AbortController().signal);
    const days = unwrap(
      await getDailyAnalytics(deps, alice.actor, { from: '2025-12-31', to: '2026-01-01' }),
    );
    expect(days).toHaveLength(1);
    expect(days[0]).toMatchObject({ date: '2026-01-01', posts: 1 });
    const reversed = errorOf(
      await getDailyAnalytics(deps, alice.actor, { from: '2026-01-02', to: '2026-01-01' }),
    );
    expect(reversed.code).toBe('validation_failed');
    const long = errorOf(
      await getDailyAnalytics(deps, alice.actor, { from: '2025-01-01', to: '2026-01-02' }),
    );
    expect(long.message).toMatch(/367 days; at most 366/);
    const notDate = errorOf(await getDailyAnalytics(deps, alice.actor, { from: '2026-02-30' }));
    expect(notDate.message).toBe('from: must be a date, YYYY-MM-DD');
  });

  it('the schedule: an early read consumes its own offset; none after the last', () => {
    const published = new Date('2026-01-01T00:00:00Z');
    const schedule = [HOUR, 6 * HOUR];
    const atEarliest = () => 0;
    const first = nextScheduledRead(published, 0, published, schedule, atEarliest);
    expect(first).toEqual({ step: 0, dueAt: new Date(published.getTime() + 0.9 * HOUR) });
    const second = nextScheduledRead(published, 0, first.dueAt as Date, schedule, atEarliest);
    expect(second.step).toBe(1);
    const done = nextScheduledRead(
      published,
      1,
      new Date(published.getTime() + 7 * HOUR),
      schedule,
    );
    expect(done).toEqual({ step: 2, dueAt: null });
  });
});
