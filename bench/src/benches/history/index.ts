/**
 * history: what a year of posts costs. One PostgreSQL database grows in steps (10^4, 10^6 and
 * 10^7 targets; smoke: 2,000 and 20,000), seeded in bulk (seed.ts); at each step the API and
 * the worker's passes are measured on it (measure.ts). Each figure at the largest size is
 * compared with the same figure at the smallest: history should cost what the indexes make it
 * cost, not what the tables hold (target: within 1.3 x). The query plans behind the figures
 * are printed at the largest size (plans.ts).
 */

import { startApi } from '../../lib/api.ts';
import type { Bench, BenchOptions } from '../../lib/bench.ts';
import {
  benchConfig,
  benchLogger,
  createBackend,
  type SeededUser,
  seedUser,
} from '../../lib/infra.ts';
import type { Figure } from '../../lib/report.ts';
import { fmt } from '../../lib/stats.ts';
import { withStorage } from '../../lib/storage.ts';
import { BLOCKS, measureApi, measurePasses, type Sample } from './measure.ts';
import { printPlans } from './plans.ts';
import { growHistory, type HistoryShape, tableSizes } from './seed.ts';

const OTHER_ACCOUNTS = 200;

const sizes = (smoke: boolean) =>
  smoke
    ? { steps: [2_000, 20_000], runs: 20 }
    : { steps: [10_000, 1_000_000, 10_000_000], runs: 1_000 };

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

function ratioFigures(first: Sample[], last: Sample[], from: number, to: number): Figure[] {
  return last.map((sample, index) => {
    const base = first[index] as Sample;
    const ratio = sample.p99 / Math.max(base.p99, 0.05);
    return {
      bench: 'history',
      name: `history: ${sample.name} p99 at ${to.toExponential(0)} / at ${from.toExponential(0)} targets`,
      value: ratio,
      unit: 'x',
      target: { op: '<=', value: 1.3 },
    } satisfies Figure;
  });
}

async function run(options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { steps, runs } = sizes(options.smoke);
  const backend = await createBackend('production', 'history');
  try {
    const config = benchConfig(backend);
    const { logger } = benchLogger('history');
    const measured: Sample[][] = [];
    let seeded: SeededUser | undefined;
    let shape: HistoryShape | undefined;
    let held = 0;
    for (const targets of steps) {
      const started = performance.now();
      const samples = await withStorage(config, async ({ handle, deps }) => {
        if (!shape) ({ seeded, shape } = await prepareShape(handle.db, deps));
        await growHistory(handle.db, shape, held, targets);
        held = targets;
        out(
          `history: ${targets} targets seeded in ${fmt((performance.now() - started) / 1000, 1)} s (${await tableSizes(handle.db)})`,
        );
        return measurePasses(deps, handle.db, seeded as SeededUser, runs);
      });
      const api = await startApi('production', config, logger);
      try {
        await withStorage(config, async ({ handle }) => {
          samples.unshift(...(await measureApi(api.origin, handle.db, seeded as SeededUser, runs)));
          if (targets === steps.at(-1)) await printPlans(handle.db, seeded as SeededUser, out);
        });
      } finally {
        await api.close();
      }
      for (const sample of samples) {
        out(
          `history ${targets}: ${sample.name} p50 ${fmt(sample.p50, 2)} ms, p99 ${fmt(sample.p99, 2)} ms (median of ${BLOCKS} blocks' p99s; over all calls ${fmt(sample.p99AllCalls, 2)} ms)`,
        );
      }
      measured.push(samples);
    }
    const first = steps[0] as number;
    const last = steps.at(-1) as number;
    return ratioFigures(measured[0] ?? [], measured.at(-1) ?? [], first, last);
  } finally {
    await backend.cleanup();
  }
}

export const historyBench: Bench = {
  name: 'history',
  run,
  async diagnose(options: BenchOptions) {
    await run({ ...options, smoke: true });
  },
};
