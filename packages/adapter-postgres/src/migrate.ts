import type { Logger } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import { type MigrationProvider, type MigrationResult, Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

/** Static provider: the migrations are imported modules, not files read at run time. */
const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export interface MigrationReport {
  /** Names of the migrations this call applied, in order (empty when already up to date). */
  applied: string[];
  /** Every known migration name, in order. */
  known: string[];
}

/**
 * Brings the schema up to date. Running it again is a no-op. Concurrent callers (several API
 * and worker processes starting together) are serialised by Kysely's migration lock.
 * On failure it throws an Error naming the failing migration, with the driver's error as
 * `cause`; nothing of the failed batch is kept (PostgreSQL runs DDL in a transaction). It logs
 * no error itself: the caller decides whether the failure ends the start or is waited out (a
 * database still starting), and says so once.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  logger?: Logger,
): Promise<MigrationReport> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((result: MigrationResult) => result.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const cause = error instanceof Error ? error : new Error(String(error ?? 'unknown error'));
    const name = failed?.migrationName;
    const message = name
      ? `database migration "${name}" failed: ${cause.message}`
      : `database migrations failed: ${cause.message}`;
    throw new Error(message, { cause });
  }
  const applied = results
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
  if (applied.length > 0) logger?.info({ applied }, 'database migrations applied');
  else logger?.debug({}, 'database schema is up to date');
  return { applied, known: Object.keys(migrations).sort() };
}
