/**
 * 0008_threads_and_first_comments: a post may carry follow-ups (`thread`, replies published
 * after the main post) and a `first_comment`; each target keeps the ids they got on the
 * platform, also when a later part failed (what was published is shown, never sent again).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`ALTER TABLE posts ADD COLUMN thread jsonb NOT NULL DEFAULT '[]'::jsonb`,
  sql`ALTER TABLE posts ADD COLUMN first_comment text`,
  sql`ALTER TABLE post_targets ADD COLUMN thread_post_ids jsonb NOT NULL DEFAULT '[]'::jsonb`,
  sql`ALTER TABLE post_targets ADD COLUMN first_comment_id text`,
];

const down = [
  sql`ALTER TABLE post_targets DROP COLUMN IF EXISTS first_comment_id`,
  sql`ALTER TABLE post_targets DROP COLUMN IF EXISTS thread_post_ids`,
  sql`ALTER TABLE posts DROP COLUMN IF EXISTS first_comment`,
  sql`ALTER TABLE posts DROP COLUMN IF EXISTS thread`,
];

export const migration0008 = fromStatements(up, down);
