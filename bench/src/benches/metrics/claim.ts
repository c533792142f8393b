/**
 * Finding the due reads: claimDue (the worker's one statement per pass) on PostgreSQL with the
 * same number of due tracks among few and among many tracked ones. Its cost must follow the
 * number due, not the number tracked: the pass reads the partial index on due_at from its
 * start and stops after a pass's worth of rows.
 */
import { METRICS_PASS_SIZE } from '@social-publisher/domain';
import { benchConfig, createBackend, seedUser } from '../../lib/infra.ts';
import type { Figure, Out } from '../../lib/report.ts';
import { fmt, median, nowMs } from '../../lib/stats.ts';
import { openStorage } from '../../lib/storage.ts';
import { seedTracks } from './seed.ts';

const PASS = METRICS_PASS_SIZE;
const PASSES = 5;

/** Per-pass times (ms) of claiming PASS due tracks among `tracked`, PASSES times. */
async function claimTimes(tracked: number, out: Out): Promise<number[]> {
  const backend = await createBackend('production', 'metrics-claim');
  try {
    const config = benchConfig(backend);
    const storage = await openStorage(config);
    try {
      const { deps, handle } = storage;
      const user = await seedUser(deps, ['twitter']);
      const seeding = nowMs();
      const due = PASS * PASSES;
      await seedTracks(handle.db, {
        accountId: user.userId,
        userId: user.userId,
        socialAccountId: user.connections.twitter ?? '',
        platform: 'twitter',
        sandbox: true,
        due,
        notDue: tracked - due,
        idPrefix: '1',
      });
      out(`metrics claim: ${tracked} tracks seeded in ${fmt((nowMs() - seeding) / 1000, 1)} s`);
      const times: number[] = [];
      for (let pass = 0; pass < PASSES; pass++) {
        const now = new Date();
        const started = nowMs();
        const claimed = await handle.repos.metrics.claimDue(
          now,
          PASS,
          new Date(now.getTime() + 300_000),
        );
        times.push(nowMs() - started);
        if (claimed.length !== PASS) throw new Error(`claimed ${claimed.length}, not ${PASS}`);
      }
      return times;
    } finally {
      await storage.handle.close();
    }
  } finally {
    await backend.cleanup();
  }
}

export async function claimFigures(smoke: boolean, out: Out): Promise<Figure[]> {
  const [small, large] = smoke ? [PASS * PASSES * 2, 20_000] : [10_000, 1_000_000];
  const few = await claimTimes(small, out);
  const many = await claimTimes(large, out);
  out(
    `metrics claim: ${PASS} due per pass, median ${fmt(median(few), 1)} ms among ${small} tracked vs ${fmt(median(many), 1)} ms among ${large} (passes: ${many.map((t) => fmt(t, 1)).join(', ')})`,
  );
  return [
    {
      bench: 'metrics',
      name: `metrics: finding ${PASS} due reads among ${small} tracked, per pass (max of ${PASSES})`,
      value: Math.max(...few),
      unit: 'ms',
      target: { op: '<=', value: 50 },
      digits: 1,
    },
    {
      bench: 'metrics',
      name: `metrics: finding ${PASS} due reads among ${large} tracked, per pass (max of ${PASSES})`,
      value: Math.max(...many),
      unit: 'ms',
      target: { op: '<=', value: 50 },
      digits: 1,
    },
    {
      bench: 'metrics',
      name: `metrics: claim cost among ${large} / among ${small} tracked (median)`,
      value: median(many) / median(few),
      unit: 'x',
      target: { op: '<=', value: 2 },
      digits: 2,
    },
  ];
}
