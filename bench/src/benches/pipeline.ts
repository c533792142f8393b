/**
 * pipeline: N posts x 3 targets on sandbox (zero-latency) connections, from enqueue to every
 * target terminal and every webhook delivered to a local receiver (a child process).
 * Floor: the same number of jobs through the bare queue with no-op processors at the same
 * concurrency, each publish job adding one delivery job (BullMQ on Redis; the in-process queue
 * in embedded mode).
 */
import { createInProcessQueue } from '@social-publisher/adapter-inprocess-queue';
import type { Config } from '@social-publisher/config';
import { createWebhook, type Platform, type PostWithTargets } from '@social-publisher/domain';
import {
  type Worker as AppWorker,
  createRuntime,
  defaultPoolSize,
  type Runtime,
  startWorker,
} from '@social-publisher/runtime';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
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
import { fmt, fmtRuns, mapLimit, median, nowMs } from '../lib/stats.ts';
import { withStorage } from '../lib/storage.ts';
import { pipelineSqlFloor } from './pipeline-sql-floor.ts';

const PLATFORMS: Platform[] = ['twitter', 'linkedin', 'facebook'];
const ENQUEUE_CONCURRENCY = 64;

interface Sizes {
  posts: number;
  runs: number;
}

function sizes(mode: Mode, smoke: boolean): Sizes {
  if (smoke) return { posts: 20, runs: 1 };
  return mode === 'production' ? { posts: 600, runs: 3 } : { posts: 300, runs: 3 };
}

interface Setup {
  backend: Backend;
  config: Config;
  runtime: Runtime;
  worker: AppWorker;
  receiver: Child;
  seeded: SeededUser;
  /** Stops the worker and closes the runtime (PGlite: frees the data directory). Idempotent. */
  stopService(): Promise<void>;
  teardown(): Promise<void>;
}

async function setup(mode: Mode): Promise<Setup> {
  const backend = await createBackend(mode, 'pipeline');
  const closers: Array<() => Promise<void>> = [() => backend.cleanup()];
  const teardown = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    // The reconciler re-adds jobs of unfinished posts; it is kept out of the measured window
    // (its first pass runs at start, before the posts exist).
    const config = benchConfig(backend, { RECONCILE_INTERVAL_MS: '600000' });
    const receiver = await startChild(new URL('./webhook-receiver.ts', import.meta.url));
    closers.push(() => receiver.close());
    const { logger } = benchLogger(`pipeline ${mode}`);
    const runtime = await createRuntime(config, logger, {
      role: mode === 'production' ? 'worker' : 'embedded',
    });
    closers.push(() => runtime.close());
    const seeded = await seedUser(runtime.deps, PLATFORMS);
    const webhook = await createWebhook(runtime.deps, seeded.ctx, {
      url: String(receiver.ready.url),
      // One delivery per post, the post's outcome: the run ends when the receiver has them all.
      // (Every event would also count each target's post.target.published, and the run would
      // end when a third of the posts had finished.)
      events: ['post.published', 'post.partial', 'post.failed'],
    });
    if (!webhook.ok) throw new Error(`createWebhook: ${webhook.error.message}`);
    const worker = await startWorker(runtime, config);
    let stopping: Promise<void> | undefined;
    const stopService = () => {
      stopping ??= worker.stop().then(() => runtime.close());
      return stopping;
    };
    closers.push(stopService);
    return { backend, config, runtime, worker, receiver, seeded, stopService, teardown };
  } catch (error) {
    await teardown();
    throw error;
  }
}

/** Inserts `count` queued posts (not timed). */
async function preparePosts(s: Setup, count: number): Promise<PostWithTargets[]> {
  const { deps } = s.runtime;
  const posts = Array.from({ length: count }, () => buildPost(deps, s.seeded, PLATFORMS));
  await mapLimit(posts, 8, (post) => insertPost(deps, post));
  return posts;
}

/** Times enqueue of every post -> last webhook received; returns milliseconds. */
async function timedRun(s: Setup, posts: PostWithTargets[]): Promise<number> {
  const { deps } = s.runtime;
  s.receiver.send({ type: 'expect', count: posts.length });
  const started = nowMs();
  await mapLimit(posts, ENQUEUE_CONCURRENCY, (post) => deps.queue.enqueuePublish(post.id, null));
  const reached = await s.receiver.next<{ type: 'reached'; at: number }>('reached', 600_000);
  return reached.at - started;
}

/** Every target terminal: a sample of the posts, read back through the repository. */
async function checkPublished(s: Setup, posts: PostWithTargets[]): Promise<void> {
  const step = Math.max(1, Math.ceil(posts.length / 10));
  for (let index = 0; index < posts.length; index += step) {
    const id = (posts[index] as PostWithTargets).id;
    const stored = await s.runtime.deps.repos.posts.findById(id);
    if (stored?.status !== 'published' || stored.targets.some((t) => t.status !== 'published')) {
      throw new Error(`post ${id} is ${stored?.status} after its webhook`);
    }
  }
}

async function measureOnce(s: Setup, count: number): Promise<number> {
  const posts = await preparePosts(s, count);
  const ms = await timedRun(s, posts);
  await checkPublished(s, posts);
  return ms;
}

/** Bare BullMQ: no-op publish processor adding one delivery job, no-op delivery processor. */
async function bullmqFloor(s: Setup, count: number, run: number): Promise<number> {
  const redisUrl = s.backend.redisUrl as string;
  const prefix = `${s.backend.prefix}-floor${run}`;
  const concurrency = s.config.worker.concurrency;
  const producer = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const consumerA = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const consumerB = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const jobOptions = { removeOnComplete: true, removeOnFail: true } as const;
  const publish = new Queue('publish', { connection: producer, prefix });
  const delivery = new Queue('webhook-delivery', { connection: producer, prefix });
  let done = 0;
  let finish: (at: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const workerOptions = {
    prefix,
    concurrency,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
  };
  const publishWorker = new Worker(
    'publish',
    async (job) => {
      await delivery.add(
        'webhook-delivery',
        { deliveryId: `d-${job.id}`, attempt: 1 },
        {
          ...jobOptions,
          jobId: `d-${job.id}`,
        },
      );
    },
    { ...workerOptions, connection: consumerA },
  );
  const deliveryWorker = new Worker('webhook-delivery', async () => {}, {
    ...workerOptions,
    connection: consumerB,
  });
  deliveryWorker.on('completed', () => {
    done += 1;
    if (done === count) finish(nowMs());
  });
  try {
    await Promise.all([publishWorker.waitUntilReady(), deliveryWorker.waitUntilReady()]);
    const ids = Array.from({ length: count }, (_, index) => `p-${run}-${index}`);
    const started = nowMs();
    await mapLimit(ids, ENQUEUE_CONCURRENCY, async (id) => {
      await publish.add('publish', { postId: id, attempt: 1 }, { ...jobOptions, jobId: id });
    });
    return (await finished) - started;
  } finally {
    await Promise.allSettled([publishWorker.close(), deliveryWorker.close()]);
    await Promise.allSettled([publish.close(), delivery.close()]);
    for (const connection of [producer, consumerA, consumerB]) connection.disconnect();
  }
}

/** The in-process queue with no-op handlers (embedded mode's floor). */
async function inProcessFloor(s: Setup, count: number): Promise<number> {
  const queue = createInProcessQueue({ concurrency: s.config.worker.concurrency });
  let done = 0;
  let finish: (at: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  await queue.start({
    publish: async (id) => {
      await queue.enqueueDelivery(`d-${id}`, null);
      return { kind: 'done' };
    },
    unpublish: async () => ({ kind: 'done' }),
    deliver: async () => {
      done += 1;
      if (done === count) finish(nowMs());
      return { kind: 'done' };
    },
  });
  try {
    const ids = Array.from({ length: count }, (_, index) => `p-${index}`);
    const started = nowMs();
    await mapLimit(ids, ENQUEUE_CONCURRENCY, (id) => queue.enqueuePublish(id, null));
    return (await finished) - started;
  } finally {
    await queue.close();
  }
}

/**
 * The SQL floor (pipeline-sql-floor.ts) once per run, on the same database after the service
 * has stopped, with the worker's pool size and concurrency; posts inserted untimed first.
 */
async function sqlFloorRates(s: Setup, posts: number, runs: number): Promise<number[]> {
  await s.stopService();
  const poolSize = s.config.databasePoolSize ?? defaultPoolSize(s.config, 'worker');
  return withStorage(
    s.config,
    async ({ handle, deps }) => {
      const rates: number[] = [];
      for (let run = 0; run <= runs; run++) {
        const prepared = Array.from({ length: run === 0 ? Math.min(posts, 50) : posts }, () =>
          buildPost(deps, s.seeded, PLATFORMS),
        );
        await mapLimit(prepared, 8, (post) => insertPost(deps, post));
        const ms = await pipelineSqlFloor(handle.db, prepared, s.config.worker.concurrency);
        if (run > 0) rates.push((posts * PLATFORMS.length) / (ms / 1000)); // run 0 warms up
      }
      return rates;
    },
    poolSize,
  );
}

async function runMode(mode: Mode, options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { posts, runs } = sizes(mode, options.smoke);
  const label = MODE_LABEL[mode];
  const targets = posts * PLATFORMS.length;
  const s = await setup(mode);
  try {
    out(
      `pipeline ${label}: ${posts} posts x ${PLATFORMS.length} targets (sandbox ${PLATFORMS.join(', ')}), webhook per post, worker concurrency ${s.config.worker.concurrency}, ${runs} runs`,
    );
    await measureOnce(s, Math.min(posts, 50)); // warm-up: connections, JIT
    const rates: number[] = [];
    const meter = startCpuMeter([
      ...groupsFor(s.backend.databaseName),
      { label: 'webhook receiver', pids: () => [s.receiver.pid] },
    ]);
    for (let run = 1; run <= runs; run++) {
      const ms = await measureOnce(s, posts);
      rates.push(targets / (ms / 1000));
      out(
        `pipeline ${label} run ${run}: ${targets} targets + ${posts} webhooks in ${fmt(ms / 1000, 2)} s = ${fmt(targets / (ms / 1000), 0)} targets/s`,
      );
    }
    out(`pipeline ${label}: ${cpuLine(meter.stop())}`);
    const floorRates: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const ms =
        mode === 'production' ? await bullmqFloor(s, posts, run) : await inProcessFloor(s, posts);
      floorRates.push(targets / (ms / 1000));
      out(
        `pipeline ${label} floor run ${run}: ${posts} publish + ${posts} delivery no-op jobs in ${fmt(ms / 1000, 2)} s = ${fmt(targets / (ms / 1000), 0)} targets/s equivalent`,
      );
    }
    const sqlRates = await sqlFloorRates(s, posts, runs);
    out(
      `pipeline ${label} SQL floor (claim, record, finalize, delivery load + record per post; concurrency ${s.config.worker.concurrency}): runs ${fmtRuns(sqlRates, 0)} targets/s`,
    );
    const rate = median(rates);
    const floor = median(floorRates);
    const sqlFloor = median(sqlRates);
    out(
      `pipeline ${label}: median ${fmt(rate, 0)} targets/s (runs ${fmtRuns(rates, 0)}), SQL floor ${fmt(sqlFloor, 0)} (ratio ${fmt(rate / sqlFloor, 2)}), queue floor ${fmt(floor, 0)} targets/s (runs ${fmtRuns(floorRates, 0)}, ratio ${fmt(rate / floor, 2)})`,
    );
    return [
      {
        bench: 'pipeline',
        name: `pipeline ${label}: targets/s`,
        value: rate,
        unit: 'targets/s',
        target: { op: '>=', value: mode === 'production' ? 1000 : 600 },
        digits: 0,
      },
      {
        bench: 'pipeline',
        name: `pipeline ${label}: SQL floor (the statements alone)`,
        value: sqlFloor,
        unit: 'targets/s',
        digits: 0,
      },
      {
        bench: 'pipeline',
        name: `pipeline ${label}: ratio to SQL floor`,
        value: rate / sqlFloor,
        unit: 'x',
        target: { op: '>=', value: 0.5 },
      },
      {
        bench: 'pipeline',
        name: `pipeline ${label}: queue floor (bare queue, no-op jobs)`,
        value: floor,
        unit: 'targets/s',
        digits: 0,
      },
    ];
  } finally {
    await s.teardown();
  }
}

export const pipelineBench: Bench = {
  name: 'pipeline',
  run: eachMode(runMode),
  async diagnose(options, figureName) {
    const mode: Mode = figureName.includes(MODE_LABEL.embedded) ? 'embedded' : 'production';
    const { out } = options;
    const posts = options.smoke ? 20 : mode === 'production' ? 300 : 150;
    const s = await setup(mode);
    try {
      await measureOnce(s, Math.min(posts, 50));
      const stages = instrumentDeps(s.runtime.deps);
      const prepared = await preparePosts(s, posts);
      stages.reset();
      const meter = startCpuMeter([
        ...groupsFor(s.backend.databaseName),
        { label: 'webhook receiver', pids: () => [s.receiver.pid] },
      ]);
      const loop = startLoopMonitor();
      const { result: ms, summary } = await profile(() => timedRun(s, prepared));
      const label = `pipeline ${MODE_LABEL[mode]}`;
      out(`${label}: ${loop.stop()}`);
      out(
        `${label} (profiled run, ${posts} posts): ${fmt(ms / 1000, 2)} s, ${fmt((posts * 3) / (ms / 1000), 0)} targets/s under the profiler`,
      );
      out(`${label}: ${cpuLine(meter.stop())}`);
      for (const line of stages.lines(label, posts)) out(line);
      for (const line of profileLines(summary, label)) out(line);
    } finally {
      await s.teardown();
    }
  },
};
