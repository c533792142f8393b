/**
 * Reading numbers against a fake with a batch endpoint (X: 100 posts per GET /2/tweets): the
 * worker's read pass over due tracks, end to end (claim, the calls, the snapshots and tracks
 * written), against a bare loop of the same HTTP calls with the same concurrency and nothing
 * stored. Production mode (PostgreSQL), X's read budget off: the figure is our own cost.
 */
import { type CoreDeps, connectSocialAccount, readMetricsRound } from '@social-publisher/domain';
import { createRuntime } from '@social-publisher/runtime';
import { type FakeX, startFakeX } from '@social-publisher/testkit';
import { request } from 'undici';
import {
  benchConfig,
  benchLogger,
  createBackend,
  type SeededUser,
  seedUser,
} from '../../lib/infra.ts';
import { instrumentDeps } from '../../lib/instrument.ts';
import type { Figure, Out } from '../../lib/report.ts';
import { fmt, mapLimit, nowMs } from '../../lib/stats.ts';
import { openStorage } from '../../lib/storage.ts';
import { seedTracks } from './seed.ts';

const BATCH = 100;
/** As the read pass: METRICS_READ_CONCURRENCY connections at a time. */
const CONCURRENCY = 4;

interface Connection {
  id: string;
  token: string;
  postIds: string[];
}

/** `count` X connections, each with `perConnection` published posts due for a read. */
async function seedConnections(
  deps: CoreDeps,
  seeded: SeededUser,
  fake: FakeX,
  config: Parameters<typeof openStorage>[0],
  count: number,
  perConnection: number,
): Promise<Connection[]> {
  const storage = await openStorage(config, 2);
  const connections: Connection[] = [];
  try {
    for (let c = 1; c <= count; c++) {
      const token = `bench-token-${c}`;
      const created = await connectSocialAccount(deps, seeded.ctx, {
        platform: 'twitter',
        externalId: `bench-${c}`,
        accessToken: token,
      });
      if (!created.ok) throw new Error(`connect: ${created.error.message}`);
      const idPrefix = `${c}000000`;
      await seedTracks(storage.handle.db, {
        accountId: seeded.userId,
        userId: seeded.userId,
        socialAccountId: created.value.id,
        platform: 'twitter',
        sandbox: false,
        due: perConnection,
        notDue: 0,
        idPrefix,
      });
      const postIds = Array.from({ length: perConnection }, (_, n) => `${idPrefix}${n + 1}`);
      for (const id of postIds) fake.metrics.numbers.set(id, {});
      connections.push({ id: created.value.id, token, postIds });
    }
  } finally {
    await storage.handle.close();
  }
  return connections;
}

/**
 * The same lookups as the reader makes, one after the other per connection, nothing stored:
 * the wall time and each call's latency.
 */
async function bareLoop(
  baseUrl: string,
  connections: Connection[],
): Promise<{ wallMs: number; callMs: number[] }> {
  const started = nowMs();
  const callMs: number[] = [];
  await mapLimit(connections, CONCURRENCY, async (connection) => {
    for (let start = 0; start < connection.postIds.length; start += BATCH) {
      const ids = connection.postIds.slice(start, start + BATCH).join(',');
      const url = `${baseUrl}/2/tweets?ids=${ids}&tweet.fields=public_metrics,non_public_metrics`;
      const callStarted = nowMs();
      const response = await request(url, {
        headers: { authorization: `Bearer ${connection.token}` },
      });
      const body = (await response.body.json()) as { data?: unknown[] };
      if (response.statusCode !== 200 || body.data?.length !== BATCH)
        throw new Error('bare read failed');
      callMs.push(nowMs() - callStarted);
    }
  });
  return { wallMs: nowMs() - started, callMs };
}

export async function readFigures(smoke: boolean, out: Out): Promise<Figure[]> {
  const [count, perConnection] = smoke ? [2, 200] : [10, 2_000];
  const total = count * perConnection;
  const fake = await startFakeX();
  const backend = await createBackend('production', 'metrics-reads');
  try {
    const config = benchConfig(backend, {
      X_API_BASE_URL: fake.baseUrl,
      X_READ_RATE_LIMIT: 'off',
      METRICS_READ_CONCURRENCY: String(CONCURRENCY),
    });
    const runtime = await createRuntime(config, benchLogger('metrics reads').logger, {
      role: 'api',
    });
    try {
      const { deps } = runtime;
      const seeded = await seedUser(deps, []);
      const connections = await seedConnections(deps, seeded, fake, config, count, perConnection);
      const bareLoopRun = await bareLoop(fake.baseUrl, connections);
      const ports = instrumentDeps(deps);
      const started = nowMs();
      let fresh = 0;
      // The worker's rounds, as it runs them when reads are due.
      for (let round = 0; round < total; round++) {
        const report = await readMetricsRound(deps, new AbortController().signal, 20);
        fresh += report.fresh;
        if (report.claimed === 0) break;
      }
      const oursMs = nowMs() - started;
      for (const line of ports.lines('metrics reads', total).slice(0, 8)) out(line);
      if (fresh !== total) throw new Error(`${fresh} of ${total} reads were fresh`);
      const ours = total / (oursMs / 1000);
      const bare = total / (bareLoopRun.wallMs / 1000);
      const bareCall =
        bareLoopRun.callMs.reduce((sum, ms) => sum + ms, 0) / bareLoopRun.callMs.length;
      const readerCall = ports.average('reader twitter.read') ?? Number.POSITIVE_INFINITY;
      out(
        `metrics reads: ${total} X posts on ${count} connections, ${BATCH} per call: ${fmt(ours, 0)} targets/s read and stored; one lookup of ${BATCH} took ${fmt(readerCall, 2)} ms in the reader, ${fmt(bareCall, 2)} ms in a bare loop (${fmt(bare, 0)} targets/s, nothing stored)`,
      );
      return [
        {
          bench: 'metrics',
          name: 'metrics: targets read and stored per second, one process (X, 100 per call)',
          value: ours,
          unit: '/s',
          target: { op: '>=', value: 2_000 },
          digits: 0,
        },
        {
          bench: 'metrics',
          name: "metrics: reading, call for call: bare loop lookup time / the reader's",
          value: bareCall / readerCall,
          unit: 'x',
          target: { op: '>=', value: 0.5 },
          digits: 2,
        },
        {
          bench: 'metrics',
          name: 'metrics: read and stored / bare loop that stores nothing (targets per second)',
          value: ours / bare,
          unit: 'x',
          digits: 2,
        },
      ];
    } finally {
      await runtime.close();
    }
  } finally {
    await fake.close();
    await backend.cleanup();
  }
}
