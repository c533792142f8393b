export { doublingDelay } from '@social-publisher/domain';
export { StartupError } from './errors.ts';
export { onLauncherGone } from './launcher.ts';
export { createLogger, LOG_SERIALIZERS, REDACT_PATHS, redactUrl } from './logger.ts';
export { createProcessMetrics, type ProcessMetrics } from './metrics.ts';
export {
  type MetricsServer,
  startMetricsServer,
  startMetricsServerIfConfigured,
} from './metrics-server.ts';
export {
  createRuntimeOrFail,
  fail,
  failOnStartError,
  missingSharedParts,
  readConfigOrFail,
  SHUTDOWN_DEADLINE_MS,
  type ShutdownOnSignals,
  shutdownOnSignals,
} from './process-lifecycle.ts';
export { connectRateLimitRedis } from './rate-limit-redis.ts';
export type { RuntimeRole } from './role.ts';
export {
  createRuntime,
  loadRuntimeConfig,
  type Runtime,
  type RuntimeOptions,
} from './runtime.ts';
export { reencryptStoredSecrets } from './secrets-rotation.ts';
export { defaultPoolSize } from './storage.ts';
export { startWorker, type Worker } from './worker.ts';
