/**
 * The API's composition root, loaded by main.ts once tracing started.
 *   pnpm start      embedded mode: API and worker in one process (PGlite + in-process queue
 *                   unless DATABASE_URL / REDIS_URL are set)
 *   pnpm start:api  API only (production: DATABASE_URL and REDIS_URL; workers run apart)
 * Config errors stop the process with one line. SIGTERM/SIGINT: stop taking requests, finish
 * the ones in flight, stop the worker, close the runtime; a second signal exits at once.
 */
import type { Config } from '@social-publisher/config';
import {
  createRuntimeOrFail,
  fail,
  failOnStartError,
  type MetricsServer,
  missingSharedParts,
  type Runtime,
  readConfigOrFail,
  shutdownOnSignals,
  startMetricsServerIfConfigured,
  startWorker,
  type Worker,
} from '@social-publisher/runtime';
import type { Telemetry } from '@social-publisher/telemetry';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { bootstrap, firstUserBanner } from './bootstrap.ts';
import { createLogger } from './logger.ts';

/** Where a local user reaches the API (the real port, also when PORT=0). */
function localUrl(config: Config, app: FastifyInstance): string {
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function main(telemetry: Telemetry): Promise<void> {
  const apiOnly = process.argv.includes('--api-only');
  const config = readConfigOrFail();
  if (apiOnly) {
    // Embedded PGlite belongs to one process, and an in-process queue is read by no worker:
    // without both shared parts, every post this API accepted would wait forever.
    const missing = missingSharedParts(config);
    if (missing.length > 0) {
      fail(
        `start:api is the production API and needs ${missing.join(' and ')} (shared with the workers); for one process with API and worker, use pnpm start`,
      );
    }
  }
  const logger = createLogger(config, {
    name: apiOnly ? 'api' : 'embedded',
    traceIds: telemetry.enabled,
  });

  let app: FastifyInstance | undefined;
  let worker: Worker | undefined;
  let runtime: Runtime | undefined;
  let metricsServer: MetricsServer | null = null;

  const shutdown = async (): Promise<void> => {
    // Stop taking requests and let those in flight finish; then the worker; then the rest.
    if (app) await app.close();
    if (metricsServer) await metricsServer.close();
    if (worker) await worker.stop();
    if (runtime) await runtime.close();
    // Last: the spans of everything above, exported before the process exits.
    await telemetry.shutdown();
  };
  const signals = shutdownOnSignals({
    logger,
    shutdown,
    stoppingMessage: 'shutting down (send the signal again to force)',
    stoppedMessage: 'stopped',
  });

  runtime = await createRuntimeOrFail(config, logger, { role: apiOnly ? 'api' : 'embedded' });
  if (signals.signals > 0) return;

  const outcome = await bootstrap(runtime.deps, config.bootstrapApiKey);
  if (outcome.kind === 'ensured') {
    logger.info(
      { userId: outcome.userId, created: outcome.created },
      'BOOTSTRAP_API_KEY: its user is ready',
    );
  }

  app = await buildApp({
    deps: runtime.deps,
    checks: runtime.checks,
    queueKind: runtime.queueKind,
    config,
    logger,
    rateLimitRedis: runtime.rateLimitRedis,
    metrics: runtime.metrics,
    metricsToken: config.metrics.token,
    adminQueues: config.admin.token
      ? {
          dashboard: runtime.queueDashboard,
          token: config.admin.token,
          writable: config.admin.queuesWritable,
        }
      : null,
    tracing: telemetry.enabled,
  });
  await app.listen({ port: config.port, host: config.host });
  metricsServer = await startMetricsServerIfConfigured(runtime.metrics, config, logger);

  if (!apiOnly) worker = await startWorker(runtime, config);
  const url = localUrl(config, app);
  if (outcome.kind === 'first-user') process.stdout.write(firstUserBanner(outcome.rawKey, url));
  logger.info({ url, mode: apiOnly ? 'api' : 'embedded', queue: runtime.queueKind }, 'listening');
}

/** Runs the API (and the worker, embedded); a failure to start stops the process with one line. */
export function serve(telemetry: Telemetry): void {
  main(telemetry).catch(failOnStartError('social-publisher'));
}
