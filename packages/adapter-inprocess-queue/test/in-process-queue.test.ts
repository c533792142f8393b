import type { JobContext, JobHandlers, JobResult, Logger } from '@social-publisher/domain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from '../src/in-process-queue.ts';
import { createInProcessQueue, type InProcessQueueOptions } from '../src/index.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const queues: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.useRealTimers();
  while (queues.length > 0) await queues.pop()?.close();
});

function make(options: InProcessQueueOptions = {}) {
  const queue = createInProcessQueue({ logger: quiet, ...options });
  queues.push(queue);
  return queue;
}

function handlers(
  publish: (id: string, ctx: JobContext) => Promise<JobResult>,
  deliver: (id: string, ctx: JobContext) => Promise<JobResult> = async () => ({ kind: 'done' }),
  unpublish: (id: string, ctx: JobContext) => Promise<JobResult> = async () => ({ kind: 'done' }),
): JobHandlers {
  return { publish, deliver, unpublish };
}

describe('in-process queue', () => {
  it('re-arms timers for delays longer than a Node timer allows', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const queue = make();
    const runs: number[] = [];
    await queue.start(
      handlers(async () => {
        runs.push(Date.now());
        return { kind: 'done' };
      }),
    );
    const runAt = Date.now() + MAX_TIMER_MS + 5 * 24 * 3600_000; // ~30 days
    await queue.enqueuePublish('far-future', new Date(runAt));
    expect(queue.stats().publish).toEqual({ waiting: 0, delayed: 1, active: 0 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(runAt - Date.now() - 1);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([runAt]);
  });

  it('bounds delivery concurrency separately from publish concurrency', async () => {
    const queue = make({ concurrency: 1, deliveryConcurrency: 3 });
    let publishing = 0;
    let delivering = 0;
    let maxPublishing = 0;
    let maxDelivering = 0;
    await queue.start(
      handlers(
        async () => {
          maxPublishing = Math.max(maxPublishing, ++publishing);
          await sleep(50);
          publishing -= 1;
          return { kind: 'done' };
        },
        async () => {
          maxDelivering = Math.max(maxDelivering, ++delivering);
          await sleep(50);
          delivering -= 1;
          return { kind: 'done' };
        },
      ),
    );
    for (let i = 0; i < 6; i++) {
      await queue.enqueuePublish(`p${i}`, null);
      await queue.enqueueDelivery(`d${i}`, null);
    }
    await vi.waitFor(
      () => expect(queue.stats().publish.active + queue.stats().deliver.active).toBe(0),
      {
        timeout: 2_000,
      },
    );
    expect(maxPublishing).toBe(1);
    expect(maxDelivering).toBe(3);
  });

  it('close() drops waiting and delayed jobs, refuses new ones, and pings false', async () => {
    const queue = make();
    const ran: string[] = [];
    await queue.enqueuePublish('waiting', null);
    await queue.enqueuePublish('delayed', new Date(Date.now() + 100));
    await queue.close();
    const start = queue.start(
      handlers(async (id) => {
        ran.push(id);
        return { kind: 'done' };
      }),
    );
    await expect(start).rejects.toThrow(/closed/);
    await expect(queue.enqueuePublish('late', null)).rejects.toThrow(/closed/);
    await expect(queue.enqueueDelivery('late', null)).rejects.toThrow(/closed/);
    expect(await queue.ping()).toBe(false);
    await sleep(200);
    expect(ran).toEqual([]);
    expect(queue.stats().publish).toEqual({ waiting: 0, delayed: 0, active: 0 });
  });

  it('close() aborts the signal after the grace period; a retry asked then is dropped', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...quiet, info: (_obj, msg) => warnings.push(msg ?? '') };
    const queue = make({ shutdownGraceMs: 100, logger });
    let aborted = false;
    await queue.start(
      handlers(async (_id, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        aborted = ctx.signal.aborted;
        return { kind: 'retry', delayMs: 0, reason: 'shutting down' };
      }),
    );
    await queue.enqueuePublish('held', null);
    await sleep(20);
    const started = Date.now();
    await queue.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(aborted).toBe(true);
    expect(queue.stats().publish).toEqual({ waiting: 0, delayed: 0, active: 0 });
    expect(warnings.some((msg) => msg.includes('reconciler'))).toBe(true);
  });

  it('close() gives up on a handler that ignores the signal after the timeout', async () => {
    const errors: string[] = [];
    const queue = make({
      shutdownGraceMs: 50,
      shutdownTimeoutMs: 50,
      logger: { ...quiet, error: (_obj, msg) => errors.push(msg ?? '') },
    });
    await queue.start(handlers(() => new Promise<JobResult>(() => {})));
    await queue.enqueuePublish('stuck', null);
    await sleep(10);
    const started = Date.now();
    await queue.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(errors.length).toBe(1);
  });

  it('treats synchronous throws like async ones and rejects bad input', async () => {
    const queue = make({ maxPublishAttempts: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 1 });
    const attempts: number[] = [];
    await queue.start({
      publish: (_id, ctx) => {
        attempts.push(ctx.attempt);
        throw new Error('sync');
      },
      deliver: async () => ({ kind: 'done' }),
      unpublish: async () => ({ kind: 'done' }),
    });
    await queue.enqueuePublish('sync-throw', null);
    await vi.waitFor(() => expect(attempts).toEqual([1, 2]));
    await expect(queue.enqueuePublish('', null)).rejects.toThrow();
    await expect(queue.enqueuePublish('x', new Date('nope'))).rejects.toThrow();
    await expect(queue.start(handlers(async () => ({ kind: 'done' })))).rejects.toThrow(/started/);
    expect(() => createInProcessQueue({ concurrency: 0 })).toThrow(/concurrency/);
  });

  it("retries a thrown job after the domain's backoff (full jitter, capped)", async () => {
    // The domain's exponentialBackoff with base 40 ms: attempt 2 comes 20-40 ms after attempt 1.
    const queue = make({ retryBaseDelayMs: 40, retryMaxDelayMs: 40 });
    const runs: number[] = [];
    await queue.start(
      handlers(async () => {
        runs.push(performance.now());
        if (runs.length === 1) throw new Error('transient');
        return { kind: 'done' };
      }),
    );
    await queue.enqueuePublish('backoff', null);
    await vi.waitFor(() => expect(runs).toHaveLength(2));
    const gap = (runs[1] ?? 0) - (runs[0] ?? 0);
    expect(gap).toBeGreaterThanOrEqual(19);
    expect(gap).toBeLessThan(1_000);
  });
});
