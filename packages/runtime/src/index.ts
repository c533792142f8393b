export { StartupError } from './errors.ts';
export { onLauncherGone } from './launcher.ts';
export { createProcessMetrics, type ProcessMetrics } from './metrics.ts';
export { type MetricsServer, startMetricsServer } from './metrics-server.ts';
export { connectRateLimitRedis } from './rate-limit-redis.ts';
export {
  createRuntime,
  loadRuntimeConfig,
  type Runtime,
  type RuntimeOptions,
  type RuntimeRole,
} from './runtime.ts';
export { reencryptStoredSecrets } from './secrets-rotation.ts';
export { defaultPoolSize } from './storage.ts';
export { isDependencyUnavailable } from './unavailable.ts';
export { startWorker, type Worker } from './worker.ts';
