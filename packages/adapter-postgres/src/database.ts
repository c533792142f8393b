import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HealthCheck, Logger, Repositories, UnitOfWork } from '@social-publisher/domain';
import { type Dialect, Kysely, type LogEvent } from 'kysely';
import { lockDataDirectory } from './data-dir-lock.ts';
import { secureDataDirectory, tightenTree } from './data-dir-modes.ts';
import {
  EMBEDDED_VACUUM_INTERVAL_MS,
  type EmbeddedVacuum,
  scheduleEmbeddedVacuum,
} from './embedded-vacuum.ts';
import { createHealthCheck } from './health.ts';
import { type LookupListener, startLookupListener } from './lookup-listener.ts';
import { migrateToLatest } from './migrate.ts';
import { reportingOutages } from './outages.ts';
import { PGliteThreadDialect } from './pglite-thread/dialect.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { type OpenedReplica, openReplica, type ReplicaStatus } from './replica.ts';
import type { Database } from './schema.ts';
import { warnAboutServerSettings } from './server-settings.ts';
import { createStorage } from './unit-of-work.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string. Without it: embedded PGlite under `${dataDir}/pglite`. */
  databaseUrl?: string;
  dataDir: string;
  /** Max connections of the pg pool (default 10). Ignored by PGlite (one connection). */
  poolSize?: number;
  logger?: Logger;
  /** Run `migrateToLatest` before returning (default false: the caller runs it). */
  migrate?: boolean;
  /** Queries slower than this are logged at warn (SQL text only, never parameters). Default 1000. */
  slowQueryMs?: number;
  /**
   * Send the hot statements as named (prepared) ones, parsed once per connection (default
   * true; see prepared.ts). Off behind PgBouncer < 1.21 in transaction pooling.
   */
  preparedStatements?: boolean;
  /**
   * Keep API-key and connection lookups in memory, emptied by change notices (default false
   * here; the runtime turns it on, see lookup-listener.ts). PGlite always keeps them.
   */
  lookupCache?: boolean;
  /**
   * A streaming replica of `databaseUrl` for list and metrics reads (replica-reads.ts), used
   * while it answers and is at most `maxLagMs` behind. PostgreSQL only.
   */
  replica?: { url: string; maxLagMs?: number; probeIntervalMs?: number };
  /**
   * PostgreSQL only: read the server settings the service's speed depends on and warn about
   * those that are off (server-settings.ts). For the long-running processes, not one-shot
   * commands. Default false.
   */
  checkServerSettings?: boolean;
  /**
   * PGlite only: how often its tables are vacuumed and analysed (embedded-vacuum.ts; it has no
   * autovacuum). Default 10 minutes.
   */
  embeddedVacuumIntervalMs?: number;
}

export interface DatabaseHandle {
  kind: DatabaseKind;
  db: Kysely<Database>;
  /** Non-transactional repositories (single statements, reads). */
  repos: Repositories;
  uow: UnitOfWork;
  health: HealthCheck;
  /** Set when a read replica was configured. */
  replica?: ReplicaStatus;
  /** Closes the pool (or the PGlite instance). Idempotent. */
  close(): Promise<void>;
}

function pgliteDirectory(dataDir: string): string {
  const directory = resolve(join(dataDir, 'pglite'));
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return directory;
}

function pgliteDialect(dataDir: string): Dialect {
  // PGlite on its own thread (pglite-thread/): one connection, serialised by Kysely.
  return new PGliteThreadDialect(pgliteDirectory(dataDir));
}

function queryLog(logger: Logger | undefined, slowQueryMs: number) {
  if (!logger) return undefined;
  return (event: LogEvent): void => {
    if (event.level === 'query' && event.queryDurationMillis >= slowQueryMs) {
      logger.warn(
        { sql: event.query.sql, durationMs: Math.round(event.queryDurationMillis) },
        'slow database query',
      );
    }
  };
}

/** Creates the Kysely instance for a backend (no migrations, no repositories). */
export function createKysely(options: OpenDatabaseOptions): {
  db: Kysely<Database>;
  kind: DatabaseKind;
} {
  const kind: DatabaseKind = options.databaseUrl ? 'postgres' : 'pglite';
  // Both backends report an unreachable database as the domain's DependencyUnavailableError.
  const dialect = reportingOutages(
    options.databaseUrl
      ? postgresDialect(
          options.databaseUrl,
          options.poolSize ?? 10,
          options.preparedStatements ?? true,
          options.logger,
        )
      : pgliteDialect(options.dataDir),
  );
  const log = queryLog(options.logger, options.slowQueryMs ?? 1_000);
  const db = new Kysely<Database>(log ? { dialect, log } : { dialect });
  return { db, kind };
}

/**
 * Claims the embedded data directory (none to claim for PostgreSQL) and returns what gives it
 * back at close. It is the owner's only (data-dir-modes.ts): tightened now, the umask set for
 * what PGlite writes while it runs, and tightened again once it is closed.
 */
function claimDataDirectory(options: OpenDatabaseOptions): () => void {
  if (options.databaseUrl) return () => {};
  secureDataDirectory(options.dataDir);
  const unlock = lockDataDirectory(pgliteDirectory(options.dataDir));
  return () => {
    unlock();
    try {
      tightenTree(options.dataDir);
    } catch (error) {
      options.logger?.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not tighten the modes under DATA_DIR at close',
      );
    }
  };
}

/**
 * Opens the database: PostgreSQL when `databaseUrl` is given, else PGlite persisted under
 * `${dataDir}/pglite`. Same schema, same SQL, same repositories on both.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const release = claimDataDirectory(options);
  let kysely: ReturnType<typeof createKysely>;
  try {
    kysely = createKysely(options);
  } catch (error) {
    release();
    throw error;
  }
  const { db, kind } = kysely;
  // PGlite runs one statement at a time: calls gather while one runs and go as the next.
  // PGlite belongs to this process alone (data-dir-lock.ts): its key and connection lookups
  // can be kept in memory (lookup-cache.ts). On PostgreSQL they are kept only while change
  // notices from every other process are heard (lookup-listener.ts).
  const { repos, uow, lookupCache } =
    kind === 'pglite'
      ? createStorage(db, { maxInFlight: 1 }, { cacheLookups: true })
      : createStorage(db, {}, { cacheLookups: options.lookupCache === true });
  let listener: LookupListener | undefined;
  let replica: OpenedReplica | undefined;
  let vacuum: EmbeddedVacuum | undefined;
  let closing: Promise<void> | undefined;
  const handle: DatabaseHandle = {
    kind,
    db,
    repos,
    uow,
    health: createHealthCheck(db),
    close: () => {
      closing ??= (listener?.close() ?? Promise.resolve())
        .then(() => vacuum?.stop())
        .then(() => replica?.close())
        .then(() => db.destroy())
        .finally(release);
      return closing;
    },
  };
  if (options.migrate) {
    try {
      await migrateToLatest(db, options.logger);
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  }
  // After the migrations: the notices come from migration 0004's triggers.
  if (kind === 'postgres' && options.databaseUrl && lookupCache) {
    listener = startLookupListener({
      databaseUrl: options.databaseUrl,
      cache: lookupCache,
      db,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }
  if (kind === 'pglite') {
    const intervalMs = options.embeddedVacuumIntervalMs ?? EMBEDDED_VACUUM_INTERVAL_MS;
    vacuum = scheduleEmbeddedVacuum(db, intervalMs, options.logger);
  }
  if (kind === 'postgres' && options.checkServerSettings && options.logger) {
    await warnAboutServerSettings(db, options.logger);
  }
  if (kind === 'postgres' && options.replica) {
    const poolSize = options.poolSize ?? 10;
    replica = openReplica(
      { ...options.replica, poolSize, preparedStatements: options.preparedStatements ?? true },
      db,
      repos,
      options.logger,
    );
    handle.repos = replica.repos;
    handle.replica = replica.status;
  }
  options.logger?.info(
    kind === 'postgres'
      ? { database: 'postgres', poolSize: options.poolSize ?? 10, replica: !!options.replica }
      : { database: 'pglite', dataDir: join(options.dataDir, 'pglite') },
    'database opened',
  );
  return handle;
}
