/**
 * soak: creating and publishing at once, for minutes. The service runs as an operator runs it
 * (one API process and one worker process from the real entry points, PostgreSQL + BullMQ,
 * production mode); this process sends `POST /posts` with two sandbox targets at a steady rate
 * (an open loop: each request leaves at its time whatever the answers' pace, latency counted
 * from that time), and every interval prints the create p50/p99 of that interval, the backlog
 * (posts accepted and not yet finished) and the RSS of each process. After the load it waits
 * for the backlog to drain.
 *
 * Size: SOAK_RATE posts/s (default 300) for SOAK_MINUTES (default 10); smoke: 20/s for 20 s.
 * Figures: the last interval's create p99 against the second's, the first being the warm-up
 * (flat: <= 1.5 x), and the backlog
 * left 10 s after the load stopped (none: every post finished).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Agent } from 'undici';
import { startCluster } from '../chaos/cluster.ts';
import type { Bench, BenchOptions } from '../lib/bench.ts';
import { createBackend } from '../lib/infra.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, percentile, sleep } from '../lib/stats.ts';

interface Sizes {
  rate: number;
  seconds: number;
  intervalSeconds: number;
}

function sizes(smoke: boolean): Sizes {
  if (smoke) return { rate: 20, seconds: 20, intervalSeconds: 5 };
  const rate = Number(process.env.SOAK_RATE ?? 300);
  const minutes = Number(process.env.SOAK_MINUTES ?? 10);
  return { rate, seconds: Math.round(minutes * 60), intervalSeconds: 60 };
}

/** Resident memory of a process in MB (Linux), or NaN when it is gone. */
function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

interface Interval {
  latencies: number[];
  errors: number;
}

async function backlog(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `select count(*) as n from posts where status in ('queued', 'scheduled', 'publishing')`,
  );
  return Number(rows[0]?.n ?? 0);
}

async function run(options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { rate, seconds, intervalSeconds } = sizes(options.smoke);
  const backend = await createBackend('production', 'soak');
  const { databaseUrl, redisUrl, prefix } = backend;
  if (!databaseUrl || !redisUrl || !prefix) throw new Error('soak needs PostgreSQL and Redis');
  const cluster = await startCluster({
    databaseUrl,
    redisUrl,
    queuePrefix: prefix,
    workers: 1,
    latencyMs: 0,
    env: { LOG_LEVEL: 'warn', X_RATE_LIMIT: 'off', LINKEDIN_RATE_LIMIT: 'off' },
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ids: string[] = [];
    for (const platform of ['twitter', 'linkedin']) {
      const made = await cluster.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        sandbox: true,
      });
      if (made.status !== 201) throw new Error(`sandbox ${platform}: ${made.status}`);
      ids.push(made.body.data.id);
    }
    const body = JSON.stringify({ content: 'Soak post', social_account_ids: ids });
    const autovacuum = (await db.query<{ autovacuum: string }>('show autovacuum')).rows[0]
      ?.autovacuum;
    out(
      `soak: ${rate} posts/s (${rate * 2} targets/s) for ${seconds} s, API and worker processes, production mode; the server's autovacuum ${autovacuum}`,
    );
    // Minutes of status changes on a server that never vacuums measure that server, not the
    // service: dead row versions and stale statistics slow every statement down (docs/deploy.md).
    if (autovacuum !== 'on') {
      out('soak: autovacuum is off on this server: the figures are not those of a deployment');
    }
    const intervals = await load(cluster, body, rate, seconds, intervalSeconds, db, out);
    const stoppedAt = Date.now();
    let left = await backlog(db);
    while (left > 0 && Date.now() - stoppedAt < 10_000) {
      await sleep(500);
      left = await backlog(db);
    }
    const backlogAt10s = left;
    while (left > 0 && Date.now() - stoppedAt < 300_000) {
      await sleep(1_000);
      left = await backlog(db);
    }
    out(
      `soak: after the load, backlog ${left}; drained ${left === 0 ? `${fmt((Date.now() - stoppedAt) / 1000, 1)} s` : 'not within 5 min'} after it stopped`,
    );
    const p99 = (interval: Interval | undefined) => percentile(interval?.latencies ?? [], 99);
    // The first interval warms up (JIT, pools, plans): the second is the baseline when there is one.
    const first = p99(intervals.length > 2 ? intervals[1] : intervals[0]);
    const last = p99(intervals.at(-1));
    return [
      {
        bench: 'soak',
        name: `soak postgres+redis: create p99, last interval / second (${rate} posts/s, ${seconds} s)`,
        value: last / Math.max(first, 0.5),
        unit: 'x',
        target: { op: '<=', value: 1.5 },
      },
      {
        bench: 'soak',
        name: `soak postgres+redis: posts not finished 10 s after the load (${rate} posts/s)`,
        value: backlogAt10s,
        unit: 'posts',
        target: { op: '<=', value: 0 },
      },
    ];
  } finally {
    await db.end();
    await cluster.close();
    await backend.cleanup();
  }
}

/** The open loop; prints one line per interval and returns the intervals. */
async function load(
  cluster: Awaited<ReturnType<typeof startCluster>>,
  body: string,
  rate: number,
  seconds: number,
  intervalSeconds: number,
  db: pg.Client,
  out: (line: string) => void,
): Promise<Interval[]> {
  const origin = cluster.origin;
  const agent = new Agent({ connections: 256, pipelining: 1 });
  const intervals: Interval[] = [];
  const started = performance.now();
  const total = rate * seconds;
  const inFlight = new Set<Promise<void>>();
  let printed = 0;
  const report = async (index: number) => {
    const interval = intervals[index] ?? { latencies: [], errors: 0 };
    const pids = cluster.pids();
    const rss = [
      ...pids.api.map((pid) => `api ${fmt(rssMb(pid), 0)}`),
      ...pids.workers.map((pid) => `worker ${fmt(rssMb(pid), 0)}`),
    ];
    out(
      `soak interval ${index + 1}: created ${interval.latencies.length}, errors ${interval.errors}, p50 ${fmt(percentile(interval.latencies, 50), 1)} ms, p99 ${fmt(percentile(interval.latencies, 99), 1)} ms, backlog ${await backlog(db)}, RSS MB ${rss.join(', ')}`,
    );
  };
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const index = Math.floor((due - started) / (intervalSeconds * 1000));
    while (printed < index) await report(printed++);
    intervals[index] ??= { latencies: [], errors: 0 };
    const interval = intervals[index] as Interval;
    const request = fetch(`${origin}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' },
      body,
      dispatcher: agent,
    } as RequestInit)
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status === 201) interval.latencies.push(performance.now() - due);
        else interval.errors += 1;
      })
      .catch(() => {
        interval.errors += 1;
      });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  while (printed < intervals.length) await report(printed++);
  await agent.close();
  return intervals;
}

export const soakBench: Bench = {
  name: 'soak',
  run,
  async diagnose(options: BenchOptions) {
    await run({ ...options, smoke: true });
  },
};
