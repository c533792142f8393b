/**
 * `pnpm start:worker` (main.ts starts tracing, then loads this): the production worker (PostgreSQL + BullMQ on Redis), any number of
 * processes. The embedded mode (API and worker in one process) is `pnpm start` in app-http.
 * WORKER_PROCESSES > 1 (default: the cores): this process supervises that many workers
 * (supervisor.ts) instead of running jobs itself.
 * JSON logs on stdout (pino). SIGTERM/SIGINT: graceful shutdown; a second signal exits at once.
 */
import type { Config } from '@social-publisher/config';
import {
  createLogger,
  createRuntimeOrFail,
  defaultPoolSize,
  fail,
  failOnStartError,
  missingSharedParts,
  onLauncherGone,
  readConfigOrFail,
  shutdownOnSignals,
  startMetricsServerIfConfigured,
  startWorker,
} from '@social-publisher/runtime';
import type { Telemetry } from '@social-publisher/telemetry';
import type pino from 'pino';
import { STARTED_MESSAGE, type Supervisor, superviseWorkers } from './supervisor.ts';

async function main(telemetry: Telemetry): Promise<void> {
  const config = readConfigOrFail();
  const missing = missingSharedParts(config);
  if (missing.length > 0) {
    fail(
      `start:worker is the production worker and needs ${missing.join(' and ')} (for one process with API and worker, use pnpm start)`,
    );
  }

  // The API's logger: the same redaction of credentials in every line.
  const logger = createLogger(config, { name: 'worker', traceIds: telemetry.enabled });
  if (config.worker.processes > 1) {
    await supervise(config, logger);
    return;
  }
  /** What a signal stops: nothing yet, then the runtime, then the whole worker. */
  let shutdown: () => Promise<void> = async () => {};
  const signals = shutdownOnSignals({
    logger,
    // Last: the spans of the jobs that just finished, exported before the process exits.
    shutdown: () => shutdown().finally(() => telemetry.shutdown()),
    stoppingMessage: 'shutting down: finishing jobs in flight (send the signal again to force)',
    stoppedMessage: 'worker stopped',
  });
  // Started by a supervisor: when it is gone, nobody would stop this worker.
  process.once('disconnect', () => {
    logger.info({}, 'the supervisor is gone');
    signals.stop();
  });

  const runtime = await createRuntimeOrFail(config, logger, { role: 'worker' });
  if (signals.signals > 0) return; // a signal arrived while starting: its exit is on its way
  shutdown = () => runtime.close();
  const worker = await startWorker(runtime, config);
  shutdown = () => worker.stop();
  process.send?.(STARTED_MESSAGE);
  // A worker serves no HTTP otherwise: its counters are scraped there.
  const metricsServer = await startMetricsServerIfConfigured(runtime.metrics, config, logger);
  if (metricsServer) {
    shutdown = async () => {
      await metricsServer.close();
      await worker.stop();
    };
  }
}

/** WORKER_PROCESSES > 1: start and watch the workers; signals are passed on to them. */
async function supervise(config: Config, logger: pino.Logger): Promise<void> {
  let supervisor: Supervisor | null = null;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    logger.info({ signal }, 'stopping the worker processes');
    if (!supervisor) process.exit(signals > 1 ? 130 : 1);
    supervisor.stop(signal).then((code) => process.exit(code));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  onLauncherGone(() => onSignal('SIGTERM'));
  try {
    supervisor = await superviseWorkers({
      processes: config.worker.processes,
      script: process.argv[1] ?? '',
      args: process.argv.slice(2),
      metricsPort: config.metrics.port,
      // The connections one worker would open, shared out: N workers must not take N times
      // PostgreSQL's connection budget (shared statements keep small pools busy).
      poolSize:
        config.databasePoolSize ??
        Math.max(5, Math.ceil(defaultPoolSize(config, 'worker') / config.worker.processes)),
      logger,
    });
  } catch {
    // The first worker could not start; it said why on stderr.
    process.exit(1);
  }
  if (signals > 0) onSignal('SIGTERM');
}

/** Runs the worker (or its supervisor); a failure to start stops the process with one line. */
export function serve(telemetry: Telemetry): void {
  main(telemetry).catch(failOnStartError('worker'));
}
