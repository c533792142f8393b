/**
 * 0014_posts_retention: the index behind POSTS_RETENTION_DAYS.
 *
 * The retention sweep deletes finished posts (a terminal status) last changed before a cutoff,
 * oldest first, a bounded number per pass. (status, updated_at) finds them by an index range
 * per terminal status, whatever the size of the table; the due scan's index covers only the
 * statuses still to run.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [sql`CREATE INDEX posts_status_updated_at_idx ON posts (status, updated_at)`];

const down = [sql`DROP INDEX IF EXISTS posts_status_updated_at_idx`];

export const migration0014 = fromStatements(up, down);
