export {
  createRuntime,
  type QueueTuning,
  type Runtime,
  type RuntimeOptions,
  type RuntimeRole,
  readQueueTuning,
  StartupError,
} from './runtime.ts';
export { startWorker, type Worker } from './worker.ts';
