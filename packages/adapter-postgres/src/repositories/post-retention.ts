/** POSTS_RETENTION_DAYS: deleting finished posts, a bounded batch at a time. */
import {
  type PostRepository,
  TERMINAL_POST_STATUSES,
  TERMINAL_TARGET_STATUSES,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

export function postRetention(db: Kysely<Database>): Pick<PostRepository, 'deleteFinishedBefore'> {
  return {
    async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
      // One statement: the batch is chosen and deleted together; targets, deliveries, metric
      // tracks and snapshots and media links follow by ON DELETE CASCADE. A post whose target
      // is still at work (an unpublish in flight) is left for a later pass. No ORDER BY: the
      // posts_status_updated_at index gives each status's old posts in a range, and the LIMIT
      // stops the scan there; ordering all of them would read every old post each pass.
      const result = await sql`
        DELETE FROM posts
         WHERE id IN (
           SELECT p.id FROM posts p
            WHERE p.status = ANY(${[...TERMINAL_POST_STATUSES]}::text[])
              AND p.updated_at < ${cutoff}
              AND NOT EXISTS (
                SELECT 1 FROM post_targets t
                 WHERE t.post_id = p.id
                   AND t.status <> ALL(${[...TERMINAL_TARGET_STATUSES]}::text[]))
            LIMIT ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
