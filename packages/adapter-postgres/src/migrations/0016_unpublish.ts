/**
 * 0016_unpublish: taking published posts down (POST /posts/:id/unpublish).
 *
 * - post_targets.status gains `removing` (asked; claimed while lease_expires_at is set),
 *   `removed` and `remove_failed`.
 * - post_targets.unpublish: `unsupported` when the target was asked to come down and its
 *   platform has no delete (it stays `published`).
 * - post_targets.unpublish_requested_at: the unpublish request the target was last asked in.
 * - posts.unpublish_requested_at: the post's open unpublish request (NULL: none). It closes,
 *   with `post.unpublished`, once none of its targets is `removing`; the reconciler re-adds
 *   the job of every open one.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const STATUSES = `'pending', 'publishing', 'published', 'failed', 'cancelled'`;

const up = [
  sql`ALTER TABLE posts ADD COLUMN unpublish_requested_at timestamptz`,
  sql`ALTER TABLE post_targets
        ADD COLUMN unpublish text,
        ADD COLUMN unpublish_requested_at timestamptz`,
  sql`ALTER TABLE post_targets ADD CONSTRAINT post_targets_unpublish_value
        CHECK (unpublish IS NULL OR unpublish = 'unsupported')`,
  sql`ALTER TABLE post_targets DROP CONSTRAINT post_targets_status_check`,
  sql.raw(`ALTER TABLE post_targets ADD CONSTRAINT post_targets_status_check
        CHECK (status IN (${STATUSES}, 'removing', 'removed', 'remove_failed'))`),
  // The reconciler: open requests, oldest first.
  sql`CREATE INDEX posts_unpublish_open_idx ON posts (unpublish_requested_at, id)
        WHERE unpublish_requested_at IS NOT NULL`,
];

const down = [
  sql`DROP INDEX IF EXISTS posts_unpublish_open_idx`,
  // What was on its way down, or failed to come down, is still out there.
  sql`UPDATE post_targets SET status = 'published', lease_expires_at = NULL
        WHERE status IN ('removing', 'remove_failed')`,
  sql`UPDATE post_targets SET status = 'cancelled' WHERE status = 'removed'`,
  sql`ALTER TABLE post_targets DROP CONSTRAINT IF EXISTS post_targets_status_check`,
  sql.raw(`ALTER TABLE post_targets ADD CONSTRAINT post_targets_status_check
        CHECK (status IN (${STATUSES}))`),
  sql`ALTER TABLE post_targets
        DROP COLUMN IF EXISTS unpublish,
        DROP COLUMN IF EXISTS unpublish_requested_at`,
  sql`ALTER TABLE posts DROP COLUMN IF EXISTS unpublish_requested_at`,
];

export const migration0016 = fromStatements(up, down);
