// The queue on Redis behind Sentinel (a master, a replica and a sentinel started here): the
// port contract, and a SENTINEL FAILOVER in the middle of a run, after which every job enqueued
// (again, where the failover refused an enqueue, as the reconciler does) still runs.
import type { JobHandlers, Logger } from '@social-publisher/domain';
import { describeQueueContract } from '@social-publisher/domain/contracts/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// testkit depends on this package: imported by path.
import { type RedisSentinelSet, startRedisSentinel } from '../../testkit/src/redis-sentinel.ts';
import { createBullmqConsumer, createBullmqQueue } from '../src/index.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('on Redis behind Sentinel', () => {
  let set: RedisSentinelSet;
  let sequence = 0;
  const connection = () => ({ sentinels: set.sentinels, name: set.master });
  beforeAll(async () => {
    set = await startRedisSentinel();
  }, 60_000);
  afterAll(async () => {
    await set?.close();
  });

  describeQueueContract(
    'bullmq through Redis Sentinel',
    async () => {
      sequence += 1;
      const prefix = `sp-sentinel-${sequence}`;
      const queue = createBullmqQueue({ connection: connection(), prefix, logger: quiet });
      const consumer = createBullmqConsumer({
        connection: connection(),
        prefix,
        concurrency: 2,
        maxPublishAttempts: 3,
        maxDeliveryAttempts: 3,
        retryBaseDelayMs: 20,
        retryMaxDelayMs: 100,
        logger: quiet,
      });
      return {
        queue,
        consumer,
        async teardown() {
          await consumer.close();
          await queue.close();
        },
      };
    },
    { concurrency: 2 },
  );

  it('a SENTINEL FAILOVER in the middle of a run: every job runs, on the new master', async () => {
    const prefix = 'sp-sentinel-failover';
    const queue = createBullmqQueue({ connection: connection(), prefix, logger: quiet });
    const consumer = createBullmqConsumer({
      connection: connection(),
      prefix,
      concurrency: 4,
      logger: quiet,
      stalledIntervalMs: 1_000,
      lockDurationMs: 2_000,
    });
    const runs = new Map<string, number>();
    const handlers: JobHandlers = {
      publish: async (id) => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        return { kind: 'done' };
      },
      deliver: async () => ({ kind: 'done' }),
      unpublish: async () => ({ kind: 'done' }),
    };
    try {
      await consumer.start(handlers);
      const before = await set.masterPort();
      const ids = Array.from(
        { length: 30 },
        (_, i) => `01900000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      );
      let refused = 0;
      let failover: Promise<void> = Promise.resolve();
      for (const [index, id] of ids.entries()) {
        if (index === 10) failover = set.failover();
        // What the reconciler does for a post whose enqueue failed: try again later.
        for (;;) {
          try {
            await queue.enqueuePublish(id, null);
            break;
          } catch {
            refused += 1;
            await sleep(200);
          }
        }
        await sleep(50);
      }
      await failover;
      const deadline = Date.now() + 30_000;
      while (ids.some((id) => !runs.has(id)) && Date.now() < deadline) await sleep(100);
      expect(ids.filter((id) => !runs.has(id))).toEqual([]);
      expect(await set.masterPort()).not.toBe(before);
      expect(await queue.ping()).toBe(true);
      console.log(
        `failover: ${refused} enqueue calls refused during it, then accepted; ${[...runs.values()].filter((n) => n > 1).length} jobs ran twice`,
      );
    } finally {
      await consumer.close();
      await queue.close();
    }
  }, 60_000);
});
