/**
 * startWorker against the domain's in-memory fakes: handler wiring, the reconciler loop (once at
 * start, never overlapping, errors logged and survived) and the stop order.
 */

import {
  createPost,
  type JobContext,
  type JobHandlers,
  type QueueConsumer,
} from '@social-publisher/domain';
import {
  createTestDeps,
  seedConnection,
  seedUser,
  type TestDeps,
} from '@social-publisher/domain/testing';
import { describe, expect, it } from 'vitest';
import { createProcessMetrics } from '../src/metrics.ts';
import type { Runtime } from '../src/runtime.ts';
import { startWorker } from '../src/worker.ts';
import { sleep, waitFor } from './harness.ts';

interface Harness {
  deps: TestDeps;
  runtime: Runtime;
  events: string[];
  handlers(): JobHandlers;
}

function harness(): Harness {
  const deps = createTestDeps();
  const events: string[] = [];
  let started: JobHandlers | undefined;
  const consumer: QueueConsumer = {
    start: async (handlers) => {
      started = handlers;
      events.push('consumer.start');
    },
    close: async () => {
      events.push('consumer.close');
    },
  };
  const runtime: Runtime = {
    deps,
    checks: { database: async () => true, queue: async () => true },
    queueKind: 'inprocess',
    databaseKind: 'pglite',
    consumer,
    rateLimitRedis: null,
    metrics: createProcessMetrics(() => null),
    queueDashboard: null,
    close: async () => {
      events.push('runtime.close');
    },
  };
  return {
    deps,
    runtime,
    events,
    handlers: () => {
      if (!started) throw new Error('consumer not started');
      return started;
    },
  };
}

const config = (reconcileIntervalMs: number) => ({
  worker: {
    concurrency: 1,
    processes: 1,
    maxPublishAttempts: 3,
    targetLeaseMs: 1_000,
    reconcileIntervalMs,
  },
});

const ctx: JobContext = {
  attempt: 1,
  maxAttempts: 3,
  waits: 0,
  signal: new AbortController().signal,
};

describe('startWorker', () => {
  it('hands jobs to the domain use cases (unknown ids finish at once)', async () => {
    const h = harness();
    const worker = await startWorker(h.runtime, config(60_000));
    expect(await h.handlers().publish('01900000-0000-7000-8000-000000000000', ctx)).toEqual({
      kind: 'done',
    });
    expect(await h.handlers().deliver('01900000-0000-7000-8000-000000000001', ctx)).toEqual({
      kind: 'done',
    });
    await worker.stop();
  });

  it('a job that finds the database unreachable waits for it without spending an attempt; a bug still fails', async () => {
    const h = harness();
    const worker = await startWorker(h.runtime, config(60_000));
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    h.deps.store.failNext('posts.startPublish', refused);
    const waited = await h.handlers().publish('01900000-0000-7000-8000-000000000000', ctx);
    expect(waited).toMatchObject({ kind: 'retry', spendsAttempt: false });
    expect(waited.kind === 'retry' && waited.delayMs).toBeLessThanOrEqual(2_400);
    h.deps.store.failNext('deliveries.findWithWebhook', refused);
    expect(await h.handlers().deliver('01900000-0000-7000-8000-000000000001', ctx)).toMatchObject({
      kind: 'retry',
      spendsAttempt: false,
    });
    h.deps.store.failNext('posts.startPublish', new TypeError('a bug'));
    await expect(h.handlers().publish('01900000-0000-7000-8000-000000000000', ctx)).rejects.toThrow(
      'a bug',
    );
    await worker.stop();
  });

  it('reconciles once at start, then every interval, one pass at a time', async () => {
    const h = harness();
    const posts = h.deps.repos.posts;
    const original = posts.findDuePosts.bind(posts);
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    posts.findDuePosts = async (until, limit) => {
      running += 1;
      passes += 1;
      maxRunning = Math.max(maxRunning, running);
      await sleep(60); // slower than the interval: passes would overlap if the loop let them
      running -= 1;
      return original(until, limit);
    };
    const worker = await startWorker(h.runtime, config(100));
    expect(passes).toBe(1); // the pass at start is awaited
    await Promise.all([worker.reconcileNow(), worker.reconcileNow(), worker.reconcileNow()]);
    await waitFor('several passes', () => passes >= 5, 5_000);
    await worker.stop();
    const after = passes;
    await sleep(250);
    expect(passes).toBe(after); // stopped means stopped
    expect(maxRunning).toBe(1);
  });

  it('logs a failing pass and keeps going', async () => {
    const h = harness();
    let calls = 0;
    h.deps.repos.posts.findDuePosts = async () => {
      calls += 1;
      throw new Error('database is down');
    };
    const worker = await startWorker(h.runtime, config(100));
    await waitFor('three failing passes', () => calls >= 3, 5_000);
    await worker.stop();
    const failures = h.deps.logger.at('error').filter((e) => e.msg === 'reconciler pass failed');
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures[0]?.obj).toMatchObject({ err: 'database is down' });
  });

  it('at start, enqueues a due post the queue lost (enqueue failed at creation)', async () => {
    const h = harness();
    const { ctx } = await seedUser(h.deps);
    await seedConnection(h.deps, ctx.accountId, 'twitter');
    h.deps.queue.failEnqueues = 1;
    const created = await createPost(
      h.deps,
      ctx,
      { content: 'lost', platforms: ['twitter'] },
      'now',
    );
    if (!created.ok) throw new Error(created.error.message);
    expect(h.deps.queue.jobs.size).toBe(0);

    const worker = await startWorker(h.runtime, config(60_000));
    expect([...h.deps.queue.jobs.values()].map((job) => job.id)).toEqual([created.value.id]);
    await worker.stop();
  });

  it('stops the reconciler, then closes the consumer, then the runtime (idempotent)', async () => {
    const h = harness();
    const worker = await startWorker(h.runtime, config(60_000));
    await Promise.all([worker.stop(), worker.stop()]);
    expect(h.events).toEqual(['consumer.start', 'consumer.close', 'runtime.close']);
  });

  it('refuses a runtime without a consumer (role api)', async () => {
    const h = harness();
    await expect(startWorker({ ...h.runtime, consumer: null }, config(1_000))).rejects.toThrow(
      /role worker or embedded/,
    );
  });
});
