/**
 * A backlog of due reads never delays a due publish: scheduled posts' lateness (claim of their
 * targets - scheduled_at) with 100,000 due reads waiting, against the same schedule without
 * them, in one worker process of the production mode (PostgreSQL + Redis).
 */

import type { Database } from '@social-publisher/adapter-postgres';
import { createPost } from '@social-publisher/domain';
import { createRuntime, startWorker } from '@social-publisher/runtime';
import { type Kysely, sql } from 'kysely';
import { startDeployRedis } from '../../lib/deploy-redis.ts';
import {
  benchConfig,
  benchLogger,
  createBackend,
  type SeededUser,
  seedUser,
} from '../../lib/infra.ts';
import type { Figure, Out } from '../../lib/report.ts';
import { fmt, percentile, sleep, waitUntil } from '../../lib/stats.ts';
import { openStorage } from '../../lib/storage.ts';
import { recordStarts } from '../schedule.ts';
import { seedTracks } from './seed.ts';

interface Sizes {
  /** Pairs of schedules, one without and one with the backlog. */
  rounds: number;
  posts: number;
  everyMs: number;
  backlog: number;
}

const sizes = (smoke: boolean): Sizes =>
  smoke
    ? { rounds: 1, posts: 20, everyMs: 50, backlog: 2_000 }
    : { rounds: 3, posts: 300, everyMs: 50, backlog: 100_000 };

/** Schedules `size.posts` posts `everyMs` apart, the first at `first`: their due times by id. */
async function schedulePosts(
  deps: Parameters<typeof createPost>[0],
  seeded: SeededUser,
  size: Sizes,
  first: number,
): Promise<Map<string, number>> {
  const due = new Map<string, number>();
  for (let i = 0; i < size.posts; i++) {
    const at = first + i * size.everyMs;
    const created = await createPost(
      deps,
      seeded.ctx,
      {
        content: `backlog bench ${i}`,
        social_account_ids: [seeded.connections.twitter ?? ''],
        scheduled_at: new Date(at).toISOString(),
      },
      'scheduled',
    );
    if (!created.ok) throw new Error(`createPost: ${created.error.message}`);
    due.set(created.value.id, at);
  }
  return due;
}

/** Waits for every post to start; each one's lateness (claim of its target - due time). */
async function latenessOf(
  due: Map<string, number>,
  starts: Map<string, number>,
  size: Sizes,
): Promise<number[]> {
  const first = Math.min(...due.values());
  if (Date.now() >= first) throw new Error('the setup ran past the first due time');
  const span = size.posts * size.everyMs;
  await waitUntil(
    'every post to start',
    () => [...due.keys()].every((id) => starts.has(id)),
    first - Date.now() + span + 60_000,
    5,
  );
  return [...due].map(([id, at]) => (starts.get(id) as number) - at);
}

export async function backlogFigures(smoke: boolean, out: Out): Promise<Figure[]> {
  const size = sizes(smoke);
  // Redis at the hz compose.yaml sets: at the default 10, delayed jobs wait up to 100 ms anyway.
  const redis = await startDeployRedis();
  const backend = await createBackend('production', 'metrics-backlog', { redisUrl: redis.url });
  try {
    const config = benchConfig(backend, { METRICS_READ_INTERVAL_MS: '200' });
    const { logger } = benchLogger('metrics backlog');
    const runtime = await createRuntime(config, logger, { role: 'worker' });
    const starts = recordStarts(runtime.deps, {});
    const worker = await startWorker(runtime, config);
    try {
      const { deps } = runtime;
      const seeded = await seedUser(deps, ['twitter']);
      await sleep(1_000);
      // Every post is created before the first is due: lateness is the worker's, not the loop's.
      const lead = () => Date.now() + 2_000 + size.posts * 20;
      // A first schedule warms the worker, the pools and the queue up; its figures are dropped.
      await latenessOf(await schedulePosts(deps, seeded, size, lead()), starts, size);
      const storage = await openStorage(config, 2);
      const db = storage.handle.db;
      // Quiet and busy schedules alternate, pooled: a stall of the machine lands in either.
      const quiet: number[] = [];
      const busy: number[] = [];
      let readDuring = 0;
      let drainedMs = 0;
      for (let round = 0; round < size.rounds; round++) {
        // Both schedules and the backlog are stored before the first post is due, so that what
        // storing them costs (writes, a checkpoint, autovacuum) falls before both, not in one.
        const quietFirst = Date.now() + 8_000 + 2 * size.posts * 20;
        const busyFirst = quietFirst + size.posts * size.everyMs + 3_000;
        const quietDue = await schedulePosts(deps, seeded, size, quietFirst);
        const busyDue = await schedulePosts(deps, seeded, size, busyFirst);
        const before = await readCount(db);
        await seedTracks(db, {
          accountId: seeded.userId,
          userId: seeded.userId,
          socialAccountId: seeded.connections.twitter ?? '',
          platform: 'twitter',
          sandbox: true,
          due: size.backlog,
          notDue: 0,
          idPrefix: `b${round}-`,
          dueAt: new Date(busyFirst - 1_000),
        });
        quiet.push(...(await latenessOf(quietDue, starts, size)));
        // The backlog is due a second before the first busy post.
        busy.push(...(await latenessOf(busyDue, starts, size)));
        readDuring += (await readCount(db)) - before;
        // Reads give way to posts about to publish: the backlog is read in the gaps and after.
        await waitUntil(
          'the backlog to be read',
          async () => (await readCount(db)) >= before + size.backlog,
          300_000,
          500,
        );
        drainedMs = Math.max(drainedMs, Date.now() - (busyFirst - 1_000));
      }
      await storage.handle.close();
      const [p99Quiet, p99Busy] = [percentile(quiet, 99), percentile(busy, 99)];
      const worst = (values: number[]) =>
        values
          .map((ms, index) => `#${index} ${fmt(ms, 0)} ms`)
          .sort((a, b) => Number(b.split(' ')[1]) - Number(a.split(' ')[1]))
          .slice(0, 5)
          .join(', ');
      out(`metrics backlog: latest starts without: ${worst(quiet)}; with: ${worst(busy)}`);
      out(
        `metrics backlog: ${size.rounds} x ${size.posts} posts ${size.everyMs} ms apart, with and without; lateness p99 ${fmt(p99Quiet, 1)} ms without, ${fmt(p99Busy, 1)} ms with ${size.backlog} due reads (${readDuring} read while they published; all read at most ${fmt(drainedMs / 1000, 1)} s after the backlog was due)`,
      );
      return [
        {
          bench: 'metrics',
          name: `metrics: publish lateness p99 with ${size.backlog} due reads / without`,
          value: p99Busy / Math.max(p99Quiet, 1),
          unit: 'x',
          target: { op: '<=', value: 1.2 },
          digits: 2,
        },
        {
          bench: 'metrics',
          name: 'metrics: publish lateness p99 with the backlog',
          value: p99Busy,
          unit: 'ms',
          digits: 1,
        },
      ];
    } finally {
      await worker.stop();
    }
  } finally {
    await backend.cleanup();
    await redis.close();
  }
}

/** How many snapshots exist: the reads done so far. */
async function readCount(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from metric_snapshots`.execute(db);
  return rows[0]?.n ?? 0;
}
