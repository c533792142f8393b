/**
 * create: POST /posts with 2 targets (sandbox twitter + linkedin connections) from autocannon
 * (a child process) against the API running in this process (no worker consuming: only
 * creation is measured; rate limit lifted). Throughput: 64 connections, closed loop, for a
 * fixed duration. Latency: an open loop at half the bare HTTP floor's throughput (requests
 * evenly spaced, latency counted from each one's due time; create-load.ts): what a caller sees
 * when the service is busy but not saturated. (At 64 closed-loop connections the latency is 64 / throughput by Little's law,
 * whatever the service does.)
 * Floors, both with the same drivers (the runtime's pool and queue producer):
 * - bare HTTP: node:http with nothing on top (read the body, JSON.parse, the same insert and
 *   queue add, a 201 with the id), loaded by the same autocannon: what the parts of an HTTP
 *   API can do; the ratio to it is what the framework, authentication, validation and the
 *   connection lookup cost.
 * - no HTTP: the insert (post + targets, one statement) plus the queue add called directly,
 *   64 loops in parallel (what the storage and the queue alone can do).
 */
import { createServer } from 'node:http';
import { buildApp } from '@social-publisher/app-http';
import type { Config } from '@social-publisher/config';
import { createPost } from '@social-publisher/domain';
import { createRuntime, type Runtime } from '@social-publisher/runtime';
import pg from 'pg';
import { type Bench, type BenchOptions, eachMode } from '../lib/bench.ts';
import { type Child, startChild } from '../lib/child.ts';
import { cpuLine, groupsFor, startCpuMeter } from '../lib/cpu.ts';
import {
  type Backend,
  benchConfig,
  benchLogger,
  createBackend,
  MODE_LABEL,
  type Mode,
  type SeededUser,
  seedUser,
} from '../lib/infra.ts';
import { instrumentDeps } from '../lib/instrument.ts';
import { startLoopMonitor } from '../lib/loop.ts';
import { buildPost, insertPost } from '../lib/posts.ts';
import { profile, profileLines } from '../lib/profile.ts';
import type { Figure } from '../lib/report.ts';
import { closedLoop, fmt, fmtRuns, median, percentile } from '../lib/stats.ts';
import { tracingOffFigure } from './tracing-off.ts';

type FastifyInstance = Awaited<ReturnType<typeof buildApp>>;
const CONNECTIONS = 64;

interface Sizes {
  runs: number;
  seconds: number;
}

const sizes = (smoke: boolean): Sizes =>
  smoke ? { runs: 1, seconds: 1 } : { runs: 3, seconds: 5 };

interface Setup {
  backend: Backend;
  config: Config;
  runtime: Runtime;
  app: FastifyInstance;
  url: string;
  /** The bare node:http floor's URL. */
  bareUrl: string;
  seeded: SeededUser;
  body: string;
  load: Child;
  teardown(): Promise<void>;
}

async function setup(mode: Mode): Promise<Setup> {
  const backend = await createBackend(mode, 'create');
  const closers: Array<() => Promise<void>> = [() => backend.cleanup()];
  const log = benchLogger(`create ${mode}`);
  const teardown = async () => {
    // Requests autocannon left in the socket buffers get 503 while the app closes: expected.
    log.mute();
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    const config = benchConfig(backend);
    const { logger } = log;
    // `api` in production (producer only); embedded: the in-process queue, never started, so
    // the jobs wait and nothing is published while creation is measured.
    const runtime = await createRuntime(config, logger, {
      role: mode === 'production' ? 'api' : 'embedded',
    });
    closers.push(() => runtime.close());
    const seeded = await seedUser(runtime.deps, ['twitter', 'linkedin']);
    const app = await buildApp({
      deps: runtime.deps,
      checks: runtime.checks,
      queueKind: runtime.queueKind,
      config,
      logger,
    });
    closers.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const url = `http://127.0.0.1:${address.port}/posts`;
    const body = JSON.stringify({
      content: 'Hello from the create benchmark',
      social_account_ids: [seeded.connections.twitter, seeded.connections.linkedin],
    });
    await postOnce({ url, body, seeded });
    const bare = await startBareServer(runtime, seeded);
    closers.push(() => bare.close());
    const load = await startChild(new URL('./create-load.ts', import.meta.url));
    closers.push(() => load.close());
    return { backend, config, runtime, app, url, bareUrl: bare.url, seeded, body, load, teardown };
  } catch (error) {
    await teardown();
    throw error;
  }
}

/** The bare HTTP floor: node:http, JSON.parse, the insert and the queue add, a 201. */
async function startBareServer(
  runtime: Runtime,
  seeded: SeededUser,
): Promise<{ url: string; close(): Promise<void> }> {
  const { deps } = runtime;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const created = async () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const post = buildPost(deps, seeded, ['twitter', 'linkedin']);
        await insertPost(deps, post);
        await deps.queue.enqueuePublish(post.id, null);
        return JSON.stringify({ id: post.id, status: post.status });
      };
      created().then(
        (body) => {
          response.writeHead(201, { 'content-type': 'application/json' });
          response.end(body);
        },
        () => {
          response.writeHead(500);
          response.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/posts`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The saturation runs above insert some 300,000 posts in under a minute: PostgreSQL is then
 * writing them out (a checkpoint forced by the WAL volume) while the latency runs start, and
 * that backlog, not the latency runs' own load, would set their tail. A CHECKPOINT first
 * settles it (PostgreSQL only; PGlite has no other process to settle).
 */
async function settleWrites(s: Setup): Promise<void> {
  if (!s.backend.databaseUrl) return;
  const client = new pg.Client({ connectionString: s.backend.databaseUrl });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** Open loop only: p99 of how late requests left after their due time (all connections busy). */
  sendLagP99?: number;
  /** Open loop only: answers over 25 ms, and in how many 100 ms windows they were due. */
  slow?: { count: number; windows: number };
}

/**
 * One load pass at the API (or at `url`: the bare floor): autocannon's closed loop, or with
 * `rate` an open loop at that many requests/s (create-load.ts).
 */
async function apiRun(s: Setup, seconds: number, rate?: number, url = s.url): Promise<LoadResult> {
  s.load.send({
    type: rate === undefined ? 'run' : 'open',
    url,
    headers: { authorization: `Bearer ${s.seeded.rawKey}`, 'content-type': 'application/json' },
    body: s.body,
    connections: CONNECTIONS,
    durationSeconds: seconds,
    ...(rate === undefined ? {} : { rate: Math.round(rate) }),
  });
  const result = await s.load.next<{
    type: 'result';
    ok: number;
    total: number;
    durationSeconds: number;
    non2xx: number;
    errors: number;
    p50: number;
    p99: number;
    sendLagP99?: number;
    slow?: { count: number; windows: number };
    statusCodes: string;
  }>('result', (seconds + 60) * 1000);
  // autocannon stops at the deadline with requests still in flight; wait until the server has
  // answered them (one more request queues behind them) so they do not overlap the next run.
  await postOnce(s);
  if (result.ok === 0)
    throw new Error(`no 201 answers (status codes ${result.statusCodes}, errors ${result.errors})`);
  return {
    rps: result.ok / result.durationSeconds,
    p50: result.p50,
    p99: result.p99,
    failed: result.non2xx + result.errors,
    ...(result.sendLagP99 === undefined ? {} : { sendLagP99: result.sendLagP99 }),
    ...(result.slow === undefined ? {} : { slow: result.slow }),
  };
}

async function postOnce(s: Pick<Setup, 'url' | 'body' | 'seeded'>): Promise<void> {
  const response = await fetch(s.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.seeded.rawKey}`, 'content-type': 'application/json' },
    body: s.body,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /posts answered ${response.status}: ${text}`);
}

/** The floor: insert + queue add, CONNECTIONS loops in parallel, no HTTP. */
async function floorRun(s: Setup, seconds: number): Promise<LoadResult> {
  const { deps } = s.runtime;
  const result = await closedLoop(CONNECTIONS, seconds * 1000, async () => {
    const post = buildPost(deps, s.seeded, ['twitter', 'linkedin']);
    await insertPost(deps, post);
    await deps.queue.enqueuePublish(post.id, null);
  });
  return {
    rps: result.count / (result.elapsedMs / 1000),
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
    failed: result.errors,
  };
}

/** Between the two: the createPost use case (validation, target lookup, insert, add), no HTTP. */
async function useCaseRun(s: Setup, seconds: number): Promise<LoadResult> {
  const { deps } = s.runtime;
  const input = JSON.parse(s.body) as Record<string, unknown>;
  const result = await closedLoop(CONNECTIONS, seconds * 1000, async () => {
    const created = await createPost(deps, s.seeded.ctx, input, 'now');
    if (!created.ok) throw new Error(created.error.message);
  });
  return {
    rps: result.count / (result.elapsedMs / 1000),
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
    failed: result.errors,
  };
}

const openText = (r: LoadResult) =>
  r.slow === undefined || r.sendLagP99 === undefined
    ? ''
    : ` (${r.slow.count} answers over 25 ms, due in ${r.slow.windows} windows of 100 ms; sent late by up to ${fmt(r.sendLagP99, 1)} ms at p99)`;

const resultText = (r: LoadResult) =>
  `${fmt(r.rps, 0)} /s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms${r.failed ? `, ${r.failed} failed` : ''}${openText(r)}`;

/**
 * The open loop's warm-up at its rate: the open loop's own connections and JIT, and the first
 * seconds after the CHECKPOINT (every page's first change writes the whole page to the WAL),
 * which are not the steady state the figure is about.
 */
const OPEN_WARM_UP_SECONDS = 3;

async function runMode(mode: Mode, options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { runs, seconds } = sizes(options.smoke);
  const label = MODE_LABEL[mode];
  const s = await setup(mode);
  try {
    out(
      `create ${label}: POST /posts with 2 targets, ${CONNECTIONS} connections, ${runs} x ${seconds} s (API in this process, load generator in a child)`,
    );
    if (!options.smoke) {
      await apiRun(s, 1); // warm-up: JIT, pool connections
      await floorRun(s, 1);
    }
    const api: LoadResult[] = [];
    const floor: LoadResult[] = [];
    const bare: LoadResult[] = [];
    for (let run = 1; run <= runs; run++) {
      const meter = startCpuMeter([
        ...groupsFor(s.backend.databaseName),
        { label: 'autocannon', pids: () => [s.load.pid] },
      ]);
      const a = await apiRun(s, seconds);
      api.push(a);
      out(`create ${label} API run ${run}: ${resultText(a)}; ${cpuLine(meter.stop())}`);
      const floorMeter = startCpuMeter(groupsFor(s.backend.databaseName));
      const f = await floorRun(s, seconds);
      floor.push(f);
      out(`create ${label} floor run ${run}: ${resultText(f)}; ${cpuLine(floorMeter.stop())}`);
      const b = await apiRun(s, seconds, undefined, s.bareUrl);
      bare.push(b);
      out(`create ${label} bare HTTP floor run ${run}: ${resultText(b)}`);
    }
    const bareRps = median(bare.map((r) => r.rps));
    const rps = median(api.map((r) => r.rps));
    const floorRps = median(floor.map((r) => r.rps));
    const p50 = median(api.map((r) => r.p50));
    const p99 = median(api.map((r) => r.p99));
    const rate = Math.round(bareRps / 2);
    await settleWrites(s);
    if (!options.smoke) await apiRun(s, OPEN_WARM_UP_SECONDS, rate);
    const open: LoadResult[] = [];
    /** CPU the API process spent per request (ms of one core; embedded: with PGlite's thread). */
    const cpuPerRequest: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const loop = startLoopMonitor();
      const meter = startCpuMeter([
        ...groupsFor(s.backend.databaseName),
        { label: 'load generator', pids: () => [s.load.pid] },
      ]);
      const o = await apiRun(s, seconds, rate);
      open.push(o);
      const readings = meter.stop();
      const own = readings.find((reading) => reading.label === 'bench process')?.percent;
      if (own !== null && own !== undefined) cpuPerRequest.push((own / 100 / o.rps) * 1000);
      out(
        `create ${label} API open loop at ${rate} req/s, run ${run}: ${resultText(o)}; ${loop.stop()}; ${cpuLine(readings)}`,
      );
    }
    // The same open loop at the bare HTTP floor: the tail the machine, PostgreSQL's commits
    // and the drivers give any server at this rate.
    const bareOpen: LoadResult[] = [];
    for (let run = 1; run <= runs; run++) {
      const b = await apiRun(s, seconds, rate, s.bareUrl);
      bareOpen.push(b);
      out(
        `create ${label} bare HTTP floor open loop at ${rate} req/s, run ${run}: ${resultText(b)}`,
      );
    }
    const bareOpenP99 = median(bareOpen.map((r) => r.p99));
    const openP50 = median(open.map((r) => r.p50));
    const openP99 = median(open.map((r) => r.p99));
    // A lighter load beside it: where the latency stands when the service is far from busy.
    const quarterRate = Math.round(bareRps / 4);
    if (!options.smoke) await apiRun(s, 1, quarterRate);
    const quarter: LoadResult[] = [];
    for (let run = 1; run <= runs; run++) {
      const q = await apiRun(s, seconds, quarterRate);
      quarter.push(q);
      out(`create ${label} API open loop at ${quarterRate} req/s, run ${run}: ${resultText(q)}`);
    }
    const quarterP99 = median(quarter.map((r) => r.p99));
    out(
      `create ${label}: API ${fmt(rps, 0)} req/s (runs ${fmtRuns(
        api.map((r) => r.rps),
        0,
      )}), p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms; floor ${fmt(floorRps, 0)} /s (runs ${fmtRuns(
        floor.map((r) => r.rps),
        0,
      )}), p99 ${fmt(median(floor.map((r) => r.p99)), 1)} ms; ratio ${fmt(rps / floorRps, 2)}; bare HTTP floor ${fmt(bareRps, 0)} /s (runs ${fmtRuns(
        bare.map((r) => r.rps),
        0,
      )}), ratio ${fmt(rps / bareRps, 2)}; open loop at ${rate} req/s (half the bare HTTP floor): p50 ${fmt(openP50, 1)} ms, p99 ${fmt(openP99, 1)} ms`,
    );
    return [
      { bench: 'create', name: `create ${label}: API req/s`, value: rps, unit: 'req/s', digits: 0 },
      {
        bench: 'create',
        name: `create ${label}: API p50 latency, ${CONNECTIONS} connections (closed loop)`,
        value: p50,
        unit: 'ms',
        digits: 1,
      },
      {
        bench: 'create',
        name: `create ${label}: API p99 latency, ${CONNECTIONS} connections (closed loop)`,
        value: p99,
        unit: 'ms',
        digits: 1,
      },
      {
        bench: 'create',
        name: `create ${label}: API p99 latency at half the floor's rate (bare HTTP floor; open loop, ${rate} req/s)`,
        value: openP99,
        unit: 'ms',
        target: { op: '<=', value: 25 },
        digits: 1,
      },
      ...(cpuPerRequest.length === 0
        ? []
        : [
            {
              bench: 'create',
              name: `create ${label}: API process CPU per request at that rate (ms of one core${mode === 'embedded' ? ', with PGlite thread' : ''})`,
              value: median(cpuPerRequest),
              unit: 'ms',
              digits: 3,
            } satisfies Figure,
            await tracingOffFigure(label, median(cpuPerRequest), options.smoke, out),
          ]),
      {
        bench: 'create',
        name: `create ${label}: floor p99 latency at the same rate (bare HTTP server, open loop)`,
        value: bareOpenP99,
        unit: 'ms',
        digits: 1,
      },
      {
        bench: 'create',
        name: `create ${label}: API p99 latency at a quarter of the floor's rate (open loop, ${quarterRate} req/s)`,
        value: quarterP99,
        unit: 'ms',
        digits: 1,
      },
      {
        bench: 'create',
        name: `create ${label}: floor, bare HTTP server (node:http + insert + queue add) /s`,
        value: bareRps,
        unit: '/s',
        digits: 0,
      },
      {
        bench: 'create',
        name: `create ${label}: ratio API / bare HTTP floor`,
        value: rps / bareRps,
        unit: 'x',
        target: { op: '>=', value: 0.6 },
        digits: 2,
      },
      {
        bench: 'create',
        name: `create ${label}: floor, no HTTP (insert + queue add) /s`,
        value: floorRps,
        unit: '/s',
        digits: 0,
      },
      {
        bench: 'create',
        name: `create ${label}: ratio API / no-HTTP floor`,
        value: rps / floorRps,
        unit: 'x',
        digits: 2,
      },
    ];
  } finally {
    await s.teardown();
  }
}

export const createBench: Bench = {
  name: 'create',
  run: eachMode(runMode),
  async diagnose(options, figureName) {
    const mode: Mode = figureName.includes(MODE_LABEL.embedded) ? 'embedded' : 'production';
    const { out } = options;
    const seconds = options.smoke ? 1 : 4;
    const label = `create ${MODE_LABEL[mode]}`;
    const s = await setup(mode);
    try {
      await apiRun(s, 1);
      const floor = await floorRun(s, seconds);
      const useCase = await useCaseRun(s, seconds);
      out(`${label}: floor, no HTTP (insert + queue add) ${resultText(floor)}`);
      out(`${label}: createPost use case, no HTTP ${resultText(useCase)}`);
      const stages = instrumentDeps(s.runtime.deps);
      const meter = startCpuMeter([
        ...groupsFor(s.backend.databaseName),
        { label: 'autocannon', pids: () => [s.load.pid] },
      ]);
      // A latency figure is diagnosed under its own load: the open loop at its rate.
      const openRate = /open loop, (\d+) req\/s/.exec(figureName)?.[1];
      const rate = openRate === undefined ? undefined : Number(openRate);
      if (rate !== undefined) await settleWrites(s);
      const loop = startLoopMonitor();
      const { result: api, summary } = await profile(() => apiRun(s, seconds, rate));
      out(
        `${label}: API under the profiler${rate === undefined ? '' : ` (open loop at ${rate} req/s)`} ${resultText(api)}; ${loop.stop()}`,
      );
      out(`${label}: ${cpuLine(meter.stop())}`);
      for (const line of stages.lines(`${label} API`, Math.round(api.rps * seconds))) out(line);
      for (const line of profileLines(summary, `${label} API`)) out(line);
    } finally {
      await s.teardown();
    }
  },
};
