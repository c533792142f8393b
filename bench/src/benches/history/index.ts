/**
 * history: what a year of posts costs. One PostgreSQL database grows in steps (10^4, 10^6 and
 * 10^7 targets; smoke: 2,000 and 20,000), seeded in bulk (seed.ts); at each step the API and
 * the worker's passes are measured on it (measure.ts), call for call beside a database of the
 * smallest size seeded for that step (side-by-side.ts). Each figure at the largest size is
 * compared with the same figure measured beside it at the smallest: history should cost what
 * the indexes make it cost, not what the tables hold (target: within 1.3 x). The query plans
 * behind the figures are printed at the largest size (plans.ts).
 */

import type { Config } from '@social-publisher/config';
import { startApi } from '../../lib/api.ts';
import type { Bench, BenchOptions } from '../../lib/bench.ts';
import {
  type Backend,
  benchConfig,
  benchLogger,
  createBackend,
  type SeededUser,
  seedUser,
} from '../../lib/infra.ts';
import type { Figure } from '../../lib/report.ts';
import { fmt } from '../../lib/stats.ts';
import { openStorage, type Storage } from '../../lib/storage.ts';
import { apiProbes, type Probe, passProbes } from './measure.ts';
import { printPlans } from './plans.ts';
import { growHistory, type HistoryShape, tableSizes } from './seed.ts';
import { BLOCKS, measureSideBySide, type Pair, type Sample } from './side-by-side.ts';

const OTHER_ACCOUNTS = 200;

const sizes = (smoke: boolean) =>
  smoke
    ? { steps: [2_000, 20_000], runs: 20 }
    : // 3,000 calls a figure: its p99 is then the 30th slowest call, not the 10th. Two
      // databases of the same size measured side by side gave up to 1.43 x at 1,000 calls
      // (finalize, a call of 1.4 ms): the noise alone was as large as the target's margin.
      { steps: [10_000, 1_000_000, 10_000_000], runs: 3_000 };

// biome-ignore lint/suspicious/noExplicitAny: raw SQL against the bench's own tables
type AnyDb = any;

/** Other users (each with its personal account) whose posts make up most of the history. */
async function otherAccounts(db: AnyDb): Promise<string[]> {
  const { sql } = await import('kysely');
  const { rows } = await sql<{ id: string }>`
    with ids as (select gen_random_uuid() as id from generate_series(1, ${OTHER_ACCOUNTS})),
         users_in as (insert into users (id, email, created_at)
                      select id, id || '@history.bench', now() from ids)
    insert into accounts (id, kind, name, created_at)
    select id, 'personal', 'history', now() from ids returning id`.execute(db);
  return rows.map((row) => row.id);
}

async function prepareShape(db: AnyDb, deps: Parameters<typeof seedUser>[0]) {
  const seeded = await seedUser(deps, ['twitter', 'linkedin']);
  const { sql } = await import('kysely');
  const { rows } = await sql<{ id: string }>`
    insert into webhooks (id, account_id, created_by, url, events, active, secret,
                          created_at)
    values (gen_random_uuid(), ${seeded.ctx.accountId}, ${seeded.userId},
            'https://hooks.example.com/history', '{post.published}', false, 'v2.sealed', now())
    returning id`.execute(db);
  const shape: HistoryShape = {
    userId: seeded.userId,
    accountId: seeded.ctx.accountId,
    connectionIds: [seeded.connections.twitter ?? '', seeded.connections.linkedin ?? ''],
    webhookId: rows[0]?.id ?? '',
    otherAccounts: await otherAccounts(db),
    now: new Date(),
  };
  return { seeded, shape };
}

/** The grown side's p99 over the reference's (a floor of 0.05 ms keeps it finite). */
const p99Ratio = ({ grown, reference }: Pair): number => grown.p99 / Math.max(reference.p99, 0.05);

function ratioFigures(pairs: Pair[], from: number, to: number): Figure[] {
  return pairs.map((pair) => ({
    bench: 'history',
    name: `history: ${pair.grown.name} p99 at ${to.toExponential(0)} / at ${from.toExponential(0)} targets`,
    value: p99Ratio(pair),
    unit: 'x',
    target: { op: '<=', value: 1.3 },
  }));
}

/** A database of its own, its measured user and the shape of its history (none seeded yet). */
interface Side {
  backend: Backend;
  config: Config;
  storage: Storage;
  seeded: SeededUser;
  shape: HistoryShape;
}

async function openSide(name: string): Promise<Side> {
  const backend = await createBackend('production', name);
  try {
    const config = benchConfig(backend);
    const storage = await openStorage(config);
    try {
      const { seeded, shape } = await prepareShape(storage.handle.db, storage.deps);
      return { backend, config, storage, seeded, shape };
    } catch (error) {
      await storage.handle.close();
      throw error;
    }
  } catch (error) {
    await backend.cleanup();
    throw error;
  }
}

async function closeSide(side: Side): Promise<void> {
  try {
    await side.storage.handle.close();
  } finally {
    await side.backend.cleanup();
  }
}

async function probesOf(side: Side, origin: string, runs: number): Promise<Probe[]> {
  const { db } = side.storage.handle;
  return [
    ...(await apiProbes(origin, db, side.seeded, runs)),
    ...(await passProbes(side.storage.deps, db, side.seeded, runs)),
  ];
}

/** Every figure on `grown` and on `reference`, side by side, each with an API of its own. */
async function measureStep(grown: Side, reference: Side, runs: number): Promise<Pair[]> {
  const { logger } = benchLogger('history');
  const grownApi = await startApi('production', grown.config, logger);
  try {
    const referenceApi = await startApi('production', reference.config, logger);
    try {
      return await measureSideBySide(
        await probesOf(grown, grownApi.origin, runs),
        await probesOf(reference, referenceApi.origin, runs),
      );
    } finally {
      await referenceApi.close();
    }
  } finally {
    await grownApi.close();
  }
}

const sampleText = (sample: Sample) =>
  `p50 ${fmt(sample.p50, 2)} ms, p99 ${fmt(sample.p99, 2)} ms (median of ${BLOCKS} blocks' p99s ${fmt(sample.p99OfBlocks, 2)} ms)`;

/**
 * Grows one database step by step; at each step a reference of the smallest size is seeded
 * beside it and every figure is timed on both, call for call (side-by-side.ts). The figure is
 * the ratio at the largest step; at the smallest the two are the same size, and their ratio
 * shows what the machine's noise alone does to it.
 */
async function run(options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { steps, runs } = sizes(options.smoke);
  const smallest = steps[0] as number;
  const largest = steps.at(-1) as number;
  const grown = await openSide('history');
  try {
    let held = 0;
    let last: Pair[] = [];
    for (const targets of steps) {
      const started = performance.now();
      await growHistory(grown.storage.handle.db, grown.shape, held, targets);
      held = targets;
      out(
        `history: ${targets} targets seeded in ${fmt((performance.now() - started) / 1000, 1)} s (${await tableSizes(grown.storage.handle.db)})`,
      );
      const reference = await openSide('history-reference');
      try {
        await growHistory(reference.storage.handle.db, reference.shape, 0, smallest);
        last = await measureStep(grown, reference, runs);
      } finally {
        await closeSide(reference);
      }
      if (targets === largest) await printPlans(grown.storage.handle.db, grown.seeded, out);
      for (const pair of last) {
        out(
          `history ${targets}: ${pair.grown.name} ${sampleText(pair.grown)}; at ${smallest} beside it ${sampleText(pair.reference)}; p99 ratio ${fmt(p99Ratio(pair), 2)} x`,
        );
      }
    }
    return ratioFigures(last, smallest, largest);
  } finally {
    await closeSide(grown);
  }
}

export const historyBench: Bench = {
  name: 'history',
  run,
  async diagnose(options: BenchOptions) {
    await run({ ...options, smoke: true });
  },
};
