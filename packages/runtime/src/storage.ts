/**
 * The storage side of the composition root: PostgreSQL (DATABASE_URL) or embedded PGlite under
 * DATA_DIR, its pool sized from the process role, and the schema brought up to date.
 */
import {
  type DatabaseHandle,
  type OpenDatabaseOptions,
  openDatabase,
} from '@social-publisher/adapter-postgres';
import type { Config } from '@social-publisher/config';
import { doublingDelay, errorMessage, type Logger } from '@social-publisher/domain';
import { StartupError } from './errors.ts';
import type { RuntimeRole } from './role.ts';
import { isDependencyUnavailable } from './unavailable.ts';

/** Where the data lives, for messages: `PostgreSQL (DATABASE_URL)` or `PGlite in <dir>`. */
export function storageLabel(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  return config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
}

/**
 * Connections a process needs so that no query waits for one: a publish job has up to ~4
 * queries in flight (claims, connection lookups, lease renewals, the result); the API one
 * per concurrent request stage. Measured: at 64 concurrent POST /posts a pool of 10 made each
 * request wait 55-75 ms for a connection, four times.
 */
export function defaultPoolSize(config: Config, role: RuntimeRole): number {
  // Capped: PostgreSQL's default max_connections is 100 for every process together.
  const worker = role === 'api' ? 0 : Math.min(4 * config.worker.concurrency, 40);
  const api = role === 'worker' ? 0 : 20;
  return Math.max(10, worker + api);
}

/** Opens the configured database; it migrates only when `options.migrate` says so. */
export function openConfiguredDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: Omit<OpenDatabaseOptions, 'databaseUrl' | 'dataDir'> = {},
): Promise<DatabaseHandle> {
  return openDatabase({
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    dataDir: config.dataDir,
    ...options,
  });
}

/**
 * Opens PostgreSQL or PGlite and brings the schema up to date (closed again on failure). A
 * PostgreSQL that cannot be reached is waited for up to DATABASE_STARTUP_WAIT_MS, retrying on
 * the reconnect schedule: processes started together with their database (compose, a host
 * reboot, a failover) come up instead of dying; any other failure stops the start at once.
 */
export async function openStorage(
  config: Config,
  logger: Logger,
  poolSize: number,
  { longRunning = false }: { longRunning?: boolean } = {},
): Promise<DatabaseHandle> {
  const giveUpAt = Date.now() + config.databaseStartupWaitMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await openConfiguredDatabase(config, {
        poolSize,
        logger,
        migrate: true,
        preparedStatements: config.databasePreparedStatements,
        lookupCache: config.databaseLookupCache,
        // The API and the worker say what would slow them down as they run; a command does not.
        checkServerSettings: longRunning,
        ...(config.databaseReplicaUrl
          ? {
              replica: {
                url: config.databaseReplicaUrl,
                maxLagMs: config.databaseReplicaMaxLagMs,
              },
            }
          : {}),
      });
    } catch (error) {
      const delayMs = doublingDelay(attempt, 500, 5_000);
      const retry =
        config.databaseUrl !== null &&
        isDependencyUnavailable(error) &&
        Date.now() + delayMs < giveUpAt;
      if (!retry) {
        throw new StartupError(`cannot start: ${storageLabel(config)}: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      logger.warn(
        { err: errorMessage(error), retryInMs: delayMs },
        'database unreachable at start: waiting for it (DATABASE_STARTUP_WAIT_MS)',
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
