import type { ApprovalDecision } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * `PostRepository.decideApproval` as one statement: the post's update applies only while it
 * waits and is the version the decision was made on (its row lock orders it with an edit or a
 * cancel of the same post); a rejection cancels the post's pending targets in the same statement.
 */
export async function decideApproval(
  db: Kysely<Database>,
  decision: ApprovalDecision,
): Promise<boolean> {
  const { postId, to, rejectionReason, seenUpdatedAt, at } = decision;
  const stamp = at.toISOString();
  const result = await sql<{ id: string }>`
    with decided as (
      update posts set
        status = ${to},
        rejection_reason = ${rejectionReason},
        updated_at = ${stamp}::timestamptz
      where id = ${postId} and status = 'pending_approval'
        and updated_at = ${seenUpdatedAt.toISOString()}::timestamptz
      returning id
    ),
    cancelled as (
      update post_targets set status = 'cancelled', updated_at = ${stamp}::timestamptz
      where post_id in (select id from decided) and status = 'pending'
        and ${to}::text = 'rejected'
    )
    select id from decided`.execute(db);
  return result.rows.length > 0;
}
