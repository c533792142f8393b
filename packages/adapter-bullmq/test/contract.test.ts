import type { Logger } from '@social-publisher/domain';
import { describeQueueContract } from '@social-publisher/domain/contracts/queue';
import { afterAll, describe, it } from 'vitest';
import { createBullmqConsumer, createBullmqQueue } from '../src/index.ts';
import { deleteKeys, newPrefix, REDIS_URL, RUN_PREFIX, redisUnavailableReason } from './helpers.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const unavailable = await redisUnavailableReason();

if (unavailable) {
  describe.skip(`bullmq queue contract (skipped: ${unavailable})`, () => {
    it('needs a Redis at REDIS_URL', () => {});
  });
} else {
  afterAll(async () => {
    await deleteKeys(RUN_PREFIX);
  });

  describeQueueContract(
    'bullmq',
    async () => {
      const prefix = newPrefix();
      const queue = createBullmqQueue({ connection: REDIS_URL, prefix, logger: quiet });
      const consumer = createBullmqConsumer({
        connection: REDIS_URL,
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
          await deleteKeys(prefix);
        },
      };
    },
    { concurrency: 2 },
  );
}
