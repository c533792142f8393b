/**
 * The queue alone, with no-op jobs: the floor of the schedule benchmark. BullMQ on Redis
 * (production) or the in-process queue (embedded), at the worker's concurrency, recording when
 * each job started.
 */
import { createInProcessQueue } from '@social-publisher/adapter-inprocess-queue';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Backend } from './infra.ts';
import { nowMs } from './stats.ts';

export interface BareQueue {
  /** Adds a no-op job to start at `runAt` (epoch ms). */
  add(id: string, runAt: number): Promise<void>;
  /** Job id -> when its processor started (epoch ms). */
  starts: Map<string, number>;
  close(): Promise<void>;
}

export async function startBareQueue(
  backend: Backend,
  concurrency: number,
  label: string,
): Promise<BareQueue> {
  const starts = new Map<string, number>();
  if (backend.mode === 'embedded') {
    const queue = createInProcessQueue({ concurrency });
    await queue.start({
      publish: async (id) => {
        if (!starts.has(id)) starts.set(id, nowMs());
        return { kind: 'done' };
      },
      deliver: async () => ({ kind: 'done' }),
      unpublish: async () => ({ kind: 'done' }),
    });
    return {
      starts,
      add: (id, runAt) => queue.enqueuePublish(id, new Date(runAt)),
      close: () => queue.close(),
    };
  }
  const redisUrl = backend.redisUrl as string;
  const prefix = `${backend.prefix}-${label}`;
  const producer = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const consumer = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('publish', { connection: producer, prefix });
  const worker = new Worker(
    'publish',
    async (job) => {
      const id = String(job.id);
      if (!starts.has(id)) starts.set(id, nowMs());
    },
    {
      connection: consumer,
      prefix,
      concurrency,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    },
  );
  await worker.waitUntilReady();
  return {
    starts,
    async add(id, runAt) {
      await queue.add(
        'publish',
        { postId: id, attempt: 1 },
        {
          jobId: id,
          delay: Math.max(0, runAt - Date.now()),
          removeOnComplete: true,
          removeOnFail: true,
        },
      );
    },
    async close() {
      await worker.close();
      await queue.close();
      producer.disconnect();
      consumer.disconnect();
    },
  };
}
