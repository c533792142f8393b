/**
 * The PostgreSQL server settings the service's speed depends on, checked once when the database
 * opens, and said in a warning when they are off: the service still works, but slows down as it
 * runs.
 *
 * `autovacuum` (on by default; some CI images turn it off): every status change of a post or a
 * target leaves a dead row version in the table and in each of its indexes. Without the daemon
 * they are never cleared, and the planner's statistics are never refreshed, so the plans of the
 * worker's prepared statements stay those chosen for the tables' first few rows. Measured with
 * `pnpm bench soak` at 200-300 posts/s: the worker's `target_complete` went from 3 to 10.6 ms a
 * call over three minutes with it off, and stayed at 1.2-1.5 ms with it on.
 */
import type { Logger } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/** The warning for a server whose `autovacuum` reads `value`, or null when there is none. */
export function autovacuumWarning(value: string | undefined): string | null {
  if (value !== 'off') return null;
  return 'autovacuum is off on this PostgreSQL server: dead row versions and stale planner statistics pile up, and publishing slows down as the tables grow. Turn it on (the PostgreSQL default)';
}

/** Reads the settings and warns once per setting that is off; a failed read says nothing. */
export async function warnAboutServerSettings(db: Kysely<Database>, logger: Logger): Promise<void> {
  let autovacuum: string | undefined;
  try {
    const { rows } = await sql<{
      autovacuum: string;
    }>`select current_setting('autovacuum') as autovacuum`.execute(db);
    autovacuum = rows[0]?.autovacuum;
  } catch {
    // The database did not answer: the first real statement reports the outage.
    return;
  }
  const warning = autovacuumWarning(autovacuum);
  if (warning) logger.warn({ setting: 'autovacuum', value: autovacuum }, warning);
}
