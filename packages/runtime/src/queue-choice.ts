/**
 * Which queue a process uses: BullMQ over the shared Redis when there is one (a consumer too
 * unless the process only serves the API), else the in-process queue (embedded mode), or, for
 * an API process without Redis, a producer that leaves every job to the database.
 */
import {
  createBullmqConsumer,
  createBullmqQueue,
  type QueueDashboard,
  type RedisConnectionInput,
} from '@social-publisher/adapter-bullmq';
import { createInProcessQueue } from '@social-publisher/adapter-inprocess-queue';
import type { Config } from '@social-publisher/config';
import type { Logger, PublishQueue, QueueConsumer } from '@social-publisher/domain';
import type { Closers } from './closers.ts';
import { redisConnectionOf } from './rate-limit-redis.ts';

export interface QueueChoice {
  queue: PublishQueue;
  consumer: QueueConsumer | null;
  /** The queue's own dashboard, for /admin/queues (BullMQ's; none for the in-process queue). */
  dashboard: QueueDashboard | null;
}

type QueueConfig = Pick<Config, 'redis' | 'queuePrefix' | 'worker' | 'queueTuning'>;

export function chooseQueue(
  config: QueueConfig,
  consumes: boolean,
  logger: Logger,
  closers: Closers,
): QueueChoice {
  if (config.redis)
    return bullmqQueue(config, redisConnectionOf(config.redis), consumes, logger, closers);
  if (!consumes) {
    logger.info(
      {},
      'no REDIS_URL: this API process only stores jobs in the database; a worker sharing the database picks them up',
    );
    return { queue: databaseOnlyQueue(), consumer: null, dashboard: null };
  }
  const inProcess = createInProcessQueue({
    concurrency: config.worker.concurrency,
    maxPublishAttempts: config.worker.maxPublishAttempts,
    logger,
  });
  closers.add('in-process queue', () => inProcess.close());
  return { queue: inProcess, consumer: inProcess, dashboard: null };
}

function bullmqQueue(
  config: QueueConfig,
  connection: RedisConnectionInput,
  consumes: boolean,
  logger: Logger,
  closers: Closers,
): QueueChoice {
  const queue = createBullmqQueue({ connection, prefix: config.queuePrefix, logger });
  closers.add('queue producer', () => queue.close());
  if (!consumes) return { queue, consumer: null, dashboard: queue.dashboard };
  const consumer = createBullmqConsumer({
    connection,
    prefix: config.queuePrefix,
    concurrency: config.worker.concurrency,
    maxPublishAttempts: config.worker.maxPublishAttempts,
    ...config.queueTuning,
    logger,
  });
  closers.add('queue consumer', () => consumer.close());
  return { queue, consumer, dashboard: queue.dashboard };
}

/**
 * A producer for an API process without Redis: nothing to hand jobs to in this process, so the
 * database alone carries them and a worker's reconciler (sharing the database) enqueues them.
 */
function databaseOnlyQueue(): PublishQueue {
  return {
    kind: 'inprocess',
    enqueuePublish: async () => {},
    cancelPublish: async () => false,
    enqueueDelivery: async () => {},
    enqueueUnpublish: async () => {},
    ping: async () => true,
    close: async () => {},
  };
}
