/**
 * 0018_due_at: the due scan reads one index range, in the order it returns.
 *
 * The reconciler asks for the posts still to run (`scheduled`, `queued`, `publishing`) that are
 * due by now + a minute, oldest due first. posts_due_idx (status, scheduled_at) answered that
 * as `scheduled_at IS NULL OR scheduled_at <= $until`: two ranges per status, then a sort on
 * coalesce(scheduled_at, created_at). PostgreSQL estimates `scheduled_at IS NULL` from the whole
 * table, where nine in ten posts (the published ones) have no time, so at 5 M posts it planned
 * ~95,000 rows for a range that held none: a parallel bitmap scan, a sort and JIT, 40-250 ms
 * for an empty answer. A post without a time is due from its creation, so the scan's key is
 * coalesce(scheduled_at, created_at) itself: an index on it (partial, as the old one) is read
 * from its start up to $until and stops at the limit, whatever the table holds.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`CREATE INDEX posts_due_at_idx ON posts ((coalesce(scheduled_at, created_at)), id)
      WHERE status IN ('scheduled', 'queued', 'publishing')`,
  sql`DROP INDEX IF EXISTS posts_due_idx`,
];

const down = [
  sql`CREATE INDEX posts_due_idx ON posts (status, scheduled_at)
      WHERE status IN ('scheduled', 'queued', 'publishing')`,
  sql`DROP INDEX IF EXISTS posts_due_at_idx`,
];

export const migration0018 = fromStatements(up, down);
