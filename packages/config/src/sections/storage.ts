/** Where the data lives: PostgreSQL (DATABASE_URL) or PGlite under DATA_DIR. */
import type { Env } from '../env-readers.ts';

export interface StorageConfig {
  /** Unset: embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /** null: sized from the process role and WORKER_CONCURRENCY (see packages/runtime). */
  databasePoolSize: number | null;
  /**
   * Hot statements go as named (prepared) ones, planned once per connection. Off behind
   * PgBouncer < 1.21 in transaction pooling, which cannot keep them.
   */
  databasePreparedStatements: boolean;
  /**
   * API-key and connection lookups kept in memory, emptied by PostgreSQL change notices
   * (LISTEN; off by itself where notices do not arrive, e.g. behind PgBouncer in transaction
   * pooling). Embedded PGlite always keeps them.
   */
  databaseLookupCache: boolean;
  /**
   * DATABASE_STARTUP_WAIT_MS: how long a starting process waits for an unreachable PostgreSQL
   * (retrying) before it gives up; 0 = give up at once.
   */
  databaseStartupWaitMs: number;
  /**
   * DATABASE_REPLICA_URL: a streaming replica of DATABASE_URL that answers list and metrics
   * reads while it is at most `databaseReplicaMaxLagMs` behind (null: every read on the primary).
   */
  databaseReplicaUrl: string | null;
  databaseReplicaMaxLagMs: number;
  /**
   * POSTS_RETENTION_DAYS: finished posts last changed longer ago are deleted by the worker,
   * with their targets, deliveries and numbers. null (unset): kept for ever.
   */
  postsRetentionDays: number | null;
  dataDir: string;
}

export function readStorage(e: Env): StorageConfig {
  return {
    databaseUrl: e.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize:
      e.string('DATABASE_POOL_SIZE') === null ? null : e.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    databasePreparedStatements: e.bool('DATABASE_PREPARED_STATEMENTS', true),
    databaseLookupCache: e.bool('DATABASE_LOOKUP_CACHE', true),
    databaseStartupWaitMs: e.int('DATABASE_STARTUP_WAIT_MS', 30_000, 0, 600_000),
    databaseReplicaUrl: e.url('DATABASE_REPLICA_URL', ['postgres:', 'postgresql:']),
    databaseReplicaMaxLagMs: e.int('DATABASE_REPLICA_MAX_LAG_MS', 2_000, 100, 600_000),
    postsRetentionDays:
      e.string('POSTS_RETENTION_DAYS') === null
        ? null
        : e.int('POSTS_RETENTION_DAYS', 365, 1, 100_000),
    dataDir: e.string('DATA_DIR') ?? './.data',
  };
}
