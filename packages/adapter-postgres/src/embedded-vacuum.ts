/**
 * The embedded database's autovacuum. PGlite runs PostgreSQL in single-user mode: no autovacuum
 * daemon and no statistics collector. Left alone, the dead row version that every status change
 * of a post or a target leaves behind stays in the table and in each of its indexes for ever,
 * and the planner never gets statistics (`reltuples` stays -1), so an embedded install slows
 * down and grows as it runs. This pass does their work instead: `VACUUM (ANALYZE)` of each
 * table, one statement at a time, so that no single statement holds PGlite's one connection for
 * the whole database. The visibility map lets a vacuum skip the pages nothing changed since the
 * last one, and `ANALYZE` reads a bounded sample, so a pass over a large, mostly settled history
 * stays short.
 */
import { errorMessage, type Logger } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/** How often the embedded database is vacuumed by default: autovacuum's pace for busy tables. */
export const EMBEDDED_VACUUM_INTERVAL_MS = 10 * 60_000;

/**
 * VACUUM (ANALYZE) of every table of the schema; returns how many and how long it took. An
 * aborted `signal` stops it between two tables (closing the database does not wait for the rest).
 */
export async function vacuumTables(
  db: Kysely<Database>,
  signal?: AbortSignal,
): Promise<{ tables: number; ms: number }> {
  const started = performance.now();
  const { rows } = await sql<{ name: string }>`
    select relname as name from pg_class
    where relkind = 'r' and relnamespace = 'public'::regnamespace
    order by relname`.execute(db);
  let tables = 0;
  for (const { name } of rows) {
    if (signal?.aborted) break;
    await sql`vacuum (analyze) ${sql.table(name)}`.execute(db);
    tables += 1;
  }
  return { tables, ms: Math.round(performance.now() - started) };
}

export interface EmbeddedVacuum {
  /** Stops the schedule, and a running pass after its current table, and waits for it. */
  stop(): Promise<void>;
}

/**
 * Runs `vacuumTables` every `intervalMs` (the first one interval after opening, so a short-lived
 * process such as `pnpm migrate` never runs one). A failed pass is logged and the next one runs
 * on schedule. The timer does not keep the process alive.
 */
export function scheduleEmbeddedVacuum(
  db: Kysely<Database>,
  intervalMs: number,
  logger?: Logger,
): EmbeddedVacuum {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const pass = async (): Promise<void> => {
    try {
      const report = await vacuumTables(db, stopping.signal);
      logger?.debug({ ...report }, 'embedded database vacuumed');
    } catch (error) {
      if (!stopping.signal.aborted) {
        logger?.warn({ err: errorMessage(error) }, 'embedded database vacuum failed');
      }
    }
  };
  const timer = setInterval(() => {
    if (stopping.signal.aborted || running) return;
    running = pass().finally(() => {
      running = undefined;
    });
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopping.abort();
      clearInterval(timer);
      await running;
    },
  };
}
