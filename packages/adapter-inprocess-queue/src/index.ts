export {
  createInProcessQueue,
  type InProcessQueue,
  type InProcessQueueOptions,
  type InProcessQueueStats,
} from './in-process-queue.ts';
