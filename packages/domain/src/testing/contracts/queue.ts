/**
 * Contract suite of the queue port (PublishQueue + QueueConsumer), run against every adapter
 * (in-process, BullMQ on a real Redis). Import it from a test file:
 *
 *   import { describeQueueContract } from '@social-publisher/domain/contracts/queue';
 *   describeQueueContract('in-process', async () => { ... return { queue, consumer, teardown } });
 *
 * `setup` is called before every test and must return a fresh, isolated queue (BullMQ: a new
 * key prefix) whose consumer is NOT started yet (each test starts it with its own handlers).
 * The consumer must be configured for fast tests:
 * - publish concurrency = `options.concurrency` (default 2);
 * - a small `maxPublishAttempts` (3 is ideal; the suite waits for every attempt);
 * - a small backoff for thrown errors (base <= 50 ms) so retries take milliseconds.
 * `teardown` closes everything (it may be called after the test already closed the consumer)
 * and removes whatever the queue left behind.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  JobContext,
  JobHandlers,
  JobResult,
  PublishQueue,
  QueueConsumer,
} from '../../ports/queue.ts';

export interface QueueContractSubject {
  queue: PublishQueue;
  consumer: QueueConsumer;
  teardown(): Promise<void>;
}

export interface QueueContractOptions {
  /** The publish concurrency `setup` gives its consumer (default 2). */
  concurrency?: number;
}

interface Call {
  kind: 'publish' | 'deliver' | 'unpublish';
  id: string;
  attempt: number;
  maxAttempts: number;
  waits: number;
  signal: AbortSignal;
  startedAt: number;
  finishedAt?: number;
}

type Behaviour = (id: string, ctx: JobContext, call: Call) => Promise<JobResult>;

const DONE: JobResult = { kind: 'done' };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Records every handler call; each kind's behaviour can be swapped per test. */
class Recorder {
  calls: Call[] = [];
  publishBehaviour: Behaviour = async () => DONE;
  deliverBehaviour: Behaviour = async () => DONE;
  unpublishBehaviour: Behaviour = async () => DONE;

  handlers(): JobHandlers {
    const run = async (kind: Call['kind'], id: string, ctx: JobContext): Promise<JobResult> => {
      const call: Call = { kind, id, ...ctx, startedAt: Date.now() };
      this.calls.push(call);
      try {
        const behaviour = {
          publish: this.publishBehaviour,
          deliver: this.deliverBehaviour,
          unpublish: this.unpublishBehaviour,
        }[kind];
        return await behaviour(id, ctx, call);
      } finally {
        call.finishedAt = Date.now();
      }
    };
    return {
      publish: (postId, ctx) => run('publish', postId, ctx),
      deliver: (deliveryId, ctx) => run('deliver', deliveryId, ctx),
      unpublish: (postId, ctx) => run('unpublish', postId, ctx),
    };
  }

  of(id: string, kind: Call['kind'] = 'publish'): Call[] {
    return this.calls.filter((call) => call.id === id && call.kind === kind);
  }

  /** Resolves once `id` has `count` calls that have all returned. */
  async finished(id: string, count = 1, timeoutMs = 5_000, kind: Call['kind'] = 'publish') {
    await waitFor(
      `${count} finished ${kind} call(s) of ${id}`,
      () => {
        const calls = this.of(id, kind);
        return calls.length >= count && calls.every((call) => call.finishedAt !== undefined);
      },
      timeoutMs,
    );
    return this.of(id, kind);
  }
}

/** A promise that can be resolved from outside (to hold a handler open). */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let counter = 0;
function newId(label: string): string {
  counter += 1;
  return `${label}-${counter}-${globalThis.crypto.randomUUID()}`;
}

export function describeQueueContract(
  name: string,
  setup: () => Promise<QueueContractSubject>,
  options: QueueContractOptions = {},
): void {
  const concurrency = options.concurrency ?? 2;

  describe(`queue port contract: ${name}`, () => {
    let subject: QueueContractSubject;
    let queue: PublishQueue;
    let consumer: QueueConsumer;
    let rec: Recorder;

    beforeEach(async () => {
      subject = await setup();
      queue = subject.queue;
      consumer = subject.consumer;
      rec = new Recorder();
    });

    afterEach(async () => {
      await subject.teardown();
    });

    const start = () => consumer.start(rec.handlers());

    it('runs a job enqueued for now once, with attempt 1', async () => {
      await start();
      const id = newId('now');
      await queue.enqueuePublish(id, null);
      const [call] = await rec.finished(id);
      expect(call?.attempt).toBe(1);
      expect(call?.maxAttempts).toBeGreaterThanOrEqual(1);
      expect(call?.signal.aborted).toBe(false);
      await sleep(300);
      expect(rec.of(id)).toHaveLength(1);
    });

    it('runs a job whose runAt is in the past at once', async () => {
      await start();
      const id = newId('past');
      const enqueuedAt = Date.now();
      await queue.enqueuePublish(id, new Date(Date.now() - 60_000));
      const [call] = await rec.finished(id);
      expect((call?.startedAt ?? 0) - enqueuedAt).toBeLessThan(1_000);
    });

    it('dedupes a post enqueued three times while waiting: one run', async () => {
      const id = newId('dedupe-waiting');
      await queue.enqueuePublish(id, null);
      await queue.enqueuePublish(id, null);
      await queue.enqueuePublish(id, null);
      await start();
      await rec.finished(id);
      await sleep(300);
      expect(rec.of(id)).toHaveLength(1);
    });

    it('dedupes a post enqueued again while delayed: one run', async () => {
      await start();
      const id = newId('dedupe-delayed');
      const runAt = new Date(Date.now() + 300);
      await queue.enqueuePublish(id, runAt);
      await queue.enqueuePublish(id, runAt);
      await queue.enqueuePublish(id, null);
      await rec.finished(id, 1, 3_000);
      await sleep(300);
      expect(rec.of(id)).toHaveLength(1);
    });

    it('dedupes a post enqueued again while its job is active: one run', async () => {
      const held = gate();
      rec.publishBehaviour = async () => {
        await held.promise;
        return DONE;
      };
      await start();
      const id = newId('dedupe-active');
      await queue.enqueuePublish(id, null);
      await waitFor('the job to start', () => rec.of(id).length === 1);
      await queue.enqueuePublish(id, null);
      held.open();
      await rec.finished(id);
      await sleep(300);
      expect(rec.of(id)).toHaveLength(1);
    });

    it('does not run a delayed job before its time and runs it within 1 s after', async () => {
      await start();
      const id = newId('delayed');
      const runAt = Date.now() + 1_000;
      await queue.enqueuePublish(id, new Date(runAt));
      const [call] = await rec.finished(id, 1, 3_000);
      const startedAt = call?.startedAt ?? 0;
      expect(startedAt).toBeGreaterThanOrEqual(runAt);
      expect(startedAt - runAt).toBeLessThan(1_000);
      expect(call?.attempt).toBe(1);
    });

    it('cancels a delayed job: returns true and the job never runs', async () => {
      await start();
      const id = newId('cancel-delayed');
      await queue.enqueuePublish(id, new Date(Date.now() + 400));
      expect(await queue.cancelPublish(id)).toBe(true);
      expect(await queue.cancelPublish(id)).toBe(false);
      await sleep(800);
      expect(rec.of(id)).toHaveLength(0);
    });

    it('cancels a waiting job: returns true and the job never runs', async () => {
      const id = newId('cancel-waiting');
      const other = newId('not-cancelled');
      await queue.enqueuePublish(id, null);
      await queue.enqueuePublish(other, null);
      expect(await queue.cancelPublish(id)).toBe(true);
      await start();
      await rec.finished(other);
      await sleep(200);
      expect(rec.of(id)).toHaveLength(0);
    });

    it('returns false when cancelling an unknown post, and never throws', async () => {
      expect(await queue.cancelPublish(newId('unknown'))).toBe(false);
    });

    it('leaves an active job alone on cancel (returns false) and lets it finish', async () => {
      const held = gate();
      rec.publishBehaviour = async () => {
        await held.promise;
        return DONE;
      };
      await start();
      const id = newId('cancel-active');
      await queue.enqueuePublish(id, null);
      await waitFor('the job to start', () => rec.of(id).length === 1);
      expect(await queue.cancelPublish(id)).toBe(false);
      held.open();
      await rec.finished(id);
    });

    it('re-enqueues a cancelled post id', async () => {
      await start();
      const id = newId('cancel-then-enqueue');
      await queue.enqueuePublish(id, new Date(Date.now() + 60_000));
      expect(await queue.cancelPublish(id)).toBe(true);
      await queue.enqueuePublish(id, null);
      await rec.finished(id);
    });

    it('runs the same job again with attempt 2 after a retry result, after the delay', async () => {
      rec.publishBehaviour = async (_id, ctx) =>
        ctx.attempt === 1 ? { kind: 'retry', delayMs: 300, reason: 'transient' } : DONE;
      await start();
      const id = newId('retry');
      await queue.enqueuePublish(id, null);
      const calls = await rec.finished(id, 2, 3_000);
      expect(calls.map((call) => call.attempt)).toEqual([1, 2]);
      const retriedAfter = (calls[1]?.startedAt ?? 0) - (calls[0]?.finishedAt ?? 0);
      expect(retriedAfter).toBeGreaterThanOrEqual(300 - 5);
      expect(retriedAfter).toBeLessThan(300 + 1_000);
      expect(calls[1]?.maxAttempts).toBe(calls[0]?.maxAttempts);
      await sleep(200);
      expect(rec.of(id)).toHaveLength(2);
    });

    it('retries a job whose handler throws, and drops it after maxAttempts', async () => {
      rec.publishBehaviour = async () => {
        throw new Error('boom');
      };
      await start();
      const id = newId('throws');
      await queue.enqueuePublish(id, null);
      await waitFor('the first attempt', () => rec.of(id).length >= 1);
      const maxAttempts = rec.of(id)[0]?.maxAttempts ?? 0;
      expect(maxAttempts).toBeGreaterThanOrEqual(2);
      const calls = await rec.finished(id, maxAttempts, 10_000);
      expect(calls.map((call) => call.attempt)).toEqual(
        Array.from({ length: maxAttempts }, (_, index) => index + 1),
      );
      await sleep(500);
      expect(rec.of(id)).toHaveLength(maxAttempts);
      // Dropped means gone: the id can be enqueued again and starts over at attempt 1.
      rec.publishBehaviour = async () => DONE;
      await queue.enqueuePublish(id, null);
      await rec.finished(id, maxAttempts + 1);
      expect(rec.of(id).at(-1)?.attempt).toBe(1);
    });

    it('drops a job whose handler still asks for a retry on its last attempt', async () => {
      rec.publishBehaviour = async () => ({ kind: 'retry', delayMs: 10, reason: 'always' });
      await start();
      const id = newId('retry-forever');
      await queue.enqueuePublish(id, null);
      await waitFor('the first attempt', () => rec.of(id).length >= 1);
      const maxAttempts = rec.of(id)[0]?.maxAttempts ?? 0;
      await rec.finished(id, maxAttempts, 10_000);
      await sleep(400);
      expect(rec.of(id).map((call) => call.attempt)).toEqual(
        Array.from({ length: maxAttempts }, (_, index) => index + 1),
      );
    });

    it('a wait (spendsAttempt: false) keeps the attempt, counts waits, and is honoured on the last attempt', async () => {
      rec.publishBehaviour = async (_id, ctx) => {
        if (ctx.attempt < ctx.maxAttempts) return { kind: 'retry', delayMs: 5, reason: 'fail' };
        if (ctx.waits < 2) {
          return { kind: 'retry', delayMs: 5, reason: 'rate limited', spendsAttempt: false };
        }
        return DONE;
      };
      await start();
      const id = newId('waits');
      await queue.enqueuePublish(id, null);
      await waitFor('the first attempt', () => rec.of(id).length >= 1);
      const maxAttempts = rec.of(id)[0]?.maxAttempts ?? 0;
      await rec.finished(id, maxAttempts + 2, 10_000);
      const tail = rec.of(id).slice(-3);
      expect(tail.map((call) => [call.attempt, call.waits])).toEqual([
        [maxAttempts, 0],
        [maxAttempts, 1],
        [maxAttempts, 2],
      ]);
    });

    it('routes delivery jobs to the deliver handler, with their own dedupe and delay', async () => {
      const id = newId('delivery');
      // Enqueued twice while waiting (no consumer yet): one job.
      await queue.enqueueDelivery(id, null);
      await queue.enqueueDelivery(id, null);
      await start();
      const [call] = await rec.finished(id, 1, 5_000, 'deliver');
      expect(call?.attempt).toBe(1);
      expect(call?.maxAttempts).toBeGreaterThanOrEqual(1);

      const later = newId('delivery-delayed');
      const runAt = Date.now() + 400;
      await queue.enqueueDelivery(later, new Date(runAt));
      const [delayed] = await rec.finished(later, 1, 3_000, 'deliver');
      expect(delayed?.startedAt).toBeGreaterThanOrEqual(runAt);

      await sleep(200);
      expect(rec.calls.filter((c) => c.kind === 'publish')).toHaveLength(0);
      expect(rec.of(id, 'deliver')).toHaveLength(1);
    });

    it('brings a delayed delivery forward when it is enqueued again for now (redeliver)', async () => {
      await start();
      const id = newId('delivery-forward');
      await queue.enqueueDelivery(id, new Date(Date.now() + 10_000));
      await sleep(100);
      const asked = Date.now();
      await queue.enqueueDelivery(id, null);
      const [call] = await rec.finished(id, 1, 3_000, 'deliver');
      expect((call?.startedAt ?? Infinity) - asked).toBeLessThan(1_500);
      await sleep(200);
      expect(rec.of(id, 'deliver')).toHaveLength(1);
    });

    it('brings a delivery waiting out a retry backoff forward when enqueued for now', async () => {
      rec.deliverBehaviour = async (_id, ctx) =>
        ctx.attempt === 1 ? { kind: 'retry', delayMs: 10_000, reason: 'receiver down' } : DONE;
      await start();
      const id = newId('delivery-backoff');
      await queue.enqueueDelivery(id, null);
      await rec.finished(id, 1, 3_000, 'deliver');
      await sleep(150);
      const asked = Date.now();
      await queue.enqueueDelivery(id, null);
      const calls = await rec.finished(id, 2, 3_000, 'deliver');
      expect(calls.map((call) => call.attempt)).toEqual([1, 2]);
      expect((calls[1]?.startedAt ?? Infinity) - asked).toBeLessThan(1_500);
    });

    it('does not bring a delayed publish job forward (retry backoff is kept)', async () => {
      await start();
      const id = newId('publish-kept');
      const runAt = Date.now() + 800;
      await queue.enqueuePublish(id, new Date(runAt));
      await queue.enqueuePublish(id, null);
      const [call] = await rec.finished(id, 1, 3_000);
      expect(call?.startedAt).toBeGreaterThanOrEqual(runAt - 5);
    });

    it('keeps publish and delivery ids apart (same id in both queues runs twice)', async () => {
      await start();
      const id = newId('shared-id');
      await queue.enqueuePublish(id, null);
      await queue.enqueueDelivery(id, null);
      await rec.finished(id, 1, 5_000, 'publish');
      await rec.finished(id, 1, 5_000, 'deliver');
    });

    it('routes unpublish jobs to their handler, apart from the publish job of the same post', async () => {
      const id = newId('unpublish');
      // Twice while waiting (no consumer yet): one job; the publish job of the same id is another.
      await queue.enqueueUnpublish(id, null);
      await queue.enqueueUnpublish(id, null);
      await queue.enqueuePublish(id, null);
      await start();
      const [call] = await rec.finished(id, 1, 5_000, 'unpublish');
      expect(call?.attempt).toBe(1);
      expect(call?.maxAttempts).toBeGreaterThanOrEqual(1);
      await rec.finished(id, 1, 5_000, 'publish');
      await sleep(200);
      expect(rec.of(id, 'unpublish')).toHaveLength(1);
      expect(rec.calls.filter((c) => c.kind === 'deliver')).toHaveLength(0);
    });

    it('dedupes an unpublish job asked again while it runs, and retries it with attempt 2', async () => {
      const held = gate();
      rec.unpublishBehaviour = async (_id, ctx) => {
        if (ctx.attempt > 1) return DONE;
        await held.promise;
        return { kind: 'retry', delayMs: 100, reason: 'a delete failed' };
      };
      await start();
      const id = newId('unpublish-active');
      await queue.enqueueUnpublish(id, null);
      await waitFor('the unpublish job to start', () => rec.of(id, 'unpublish').length === 1);
      await queue.enqueueUnpublish(id, null);
      held.open();
      const calls = await rec.finished(id, 2, 5_000, 'unpublish');
      expect(calls.map((c) => c.attempt)).toEqual([1, 2]);
      await sleep(300);
      expect(rec.of(id, 'unpublish')).toHaveLength(2);
    });

    it('runs a finished job again when its id is enqueued again', async () => {
      await start();
      const id = newId('again');
      await queue.enqueuePublish(id, null);
      await rec.finished(id);
      // Give the adapter a moment to retire the finished job (removal follows the handler).
      await sleep(200);
      await queue.enqueuePublish(id, null);
      const calls = await rec.finished(id, 2);
      expect(calls.map((call) => call.attempt)).toEqual([1, 1]);
    });

    it(`respects the concurrency bound (${concurrency})`, async () => {
      let inFlight = 0;
      let maxInFlight = 0;
      rec.publishBehaviour = async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(200);
        inFlight -= 1;
        return DONE;
      };
      const ids = Array.from({ length: concurrency * 3 }, () => newId('bounded'));
      for (const id of ids) await queue.enqueuePublish(id, null);
      await start();
      await waitFor(
        'every bounded job to finish',
        () => ids.every((id) => rec.of(id).some((call) => call.finishedAt !== undefined)),
        10_000,
      );
      expect(maxInFlight).toBe(concurrency);
      for (const id of ids) expect(rec.of(id)).toHaveLength(1);
    });

    it('close() waits for an in-flight handler and then takes no more jobs', async () => {
      let finished = false;
      rec.publishBehaviour = async () => {
        await sleep(400);
        finished = true;
        return DONE;
      };
      await start();
      const id = newId('inflight');
      await queue.enqueuePublish(id, null);
      await waitFor('the job to start', () => rec.of(id).length === 1);
      const closeStarted = Date.now();
      await consumer.close();
      expect(finished).toBe(true);
      expect(Date.now() - closeStarted).toBeGreaterThanOrEqual(200);
      expect(rec.of(id)[0]?.signal.aborted).toBe(false);

      // After close nothing is started: the enqueue is either refused or kept for later.
      const late = newId('after-close');
      await queue.enqueuePublish(late, null).catch(() => undefined);
      await sleep(300);
      expect(rec.of(late)).toHaveLength(0);
      // A second close is harmless.
      await consumer.close();
    });

    it('answers ping with true', async () => {
      expect(await queue.ping()).toBe(true);
    });
  });
}
