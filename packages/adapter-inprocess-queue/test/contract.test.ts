import type { Logger } from '@social-publisher/domain';
import { describeQueueContract } from '@social-publisher/domain/contracts/queue';
import { createInProcessQueue } from '../src/index.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describeQueueContract(
  'in-process',
  async () => {
    const queue = createInProcessQueue({
      concurrency: 2,
      maxPublishAttempts: 3,
      maxDeliveryAttempts: 3,
      retryBaseDelayMs: 20,
      retryMaxDelayMs: 100,
      logger: quiet,
    });
    return { queue, consumer: queue, teardown: () => queue.close() };
  },
  { concurrency: 2 },
);
