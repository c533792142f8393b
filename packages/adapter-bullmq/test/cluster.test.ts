// The queue port contract on a real 3-node Redis Cluster (started here with redis-server): the
// prefix gets a hash tag by itself, so every key of BullMQ's scripts shares one slot.
import type { Logger } from '@social-publisher/domain';
import { describeQueueContract } from '@social-publisher/domain/contracts/queue';
import { afterAll, beforeAll, describe } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../../testkit/src/redis-cluster.ts';
import { createBullmqConsumer, createBullmqQueue } from '../src/index.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let sequence = 0;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  describeQueueContract(
    'bullmq on a Redis Cluster',
    async () => {
      sequence += 1;
      const connection = { cluster: cluster.nodes };
      const prefix = `sp-contract-${sequence}`;
      const queue = createBullmqQueue({ connection, prefix, logger: quiet });
      const consumer = createBullmqConsumer({
        connection,
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
});
