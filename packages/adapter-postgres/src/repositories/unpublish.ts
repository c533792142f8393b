/**
 * The unpublish side of the post repository (the domain's PostUnpublishing): an ask, the
 * leased claims of `removing` targets, their results, and the close of the post's open request.
 *
 * Ordering: an ask and a close both lock the post's row first, so a close never misses the
 * targets an ask made `removing` (a close reads the targets after it holds the lock, in a
 * statement of its own). Claims use FOR UPDATE SKIP LOCKED like the publish start: each target
 * is claimed by exactly one of any number of concurrent callers.
 */
import type {
  PostTarget,
  PostUnpublishing,
  PostWithTargets,
  RemovalClaim,
  UnpublishTally,
} from '@social-publisher/domain';
import { UNPUBLISHABLE_TARGET_STATUSES } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { columnList, targetColumns } from './columns.ts';
import { releaseClaim } from './target-release.ts';

const returnedTarget = columnList(targetColumns, 't');

/** Opens the request (or joins the open one) and moves the named targets, in one statement. */
async function storeAsk(
  db: Kysely<Database>,
  request: Parameters<PostUnpublishing['requestUnpublish']>[0],
): Promise<boolean> {
  const { postId, removeTargetIds, unsupportedTargetIds, at } = request;
  const when = at.toISOString();
  // The CTEs read one snapshot: `removing` and `joined` touch disjoint rows (by status).
  const result = await sql<{ id: string }>`${preparedMark('unpublish_ask')}
    with post as (
      select id, coalesce(unpublish_requested_at, ${when}::timestamptz) as round
      from posts where id = ${postId} for update
    ),
    opened as (
      update posts set unpublish_requested_at = post.round
      from post where posts.id = post.id
      returning posts.id
    ),
    removing as (
      update post_targets t set status = 'removing', lease_expires_at = null, error_code = null,
        error_message = null, retryable = null, unpublish = null,
        unpublish_requested_at = post.round, updated_at = ${when}::timestamptz
      from post
      where t.post_id = post.id and t.id = any(${[...removeTargetIds]}::uuid[])
        and t.status = any(${[...UNPUBLISHABLE_TARGET_STATUSES]}::text[])
    ),
    joined as (
      update post_targets t set unpublish_requested_at = post.round
      from post
      where t.post_id = post.id and t.id = any(${[...removeTargetIds]}::uuid[])
        and t.status = 'removing'
    ),
    unsupported as (
      update post_targets t set unpublish = 'unsupported', unpublish_requested_at = post.round,
        updated_at = ${when}::timestamptz
      from post
      where t.post_id = post.id and t.id = any(${[...unsupportedTargetIds]}::uuid[])
        and t.status = 'published'
    )
    select id from opened`.execute(db);
  return result.rows.length > 0;
}

/** Closes the open request when nothing in it is `removing`; the caller holds the post's lock. */
async function closeLocked(db: Kysely<Database>, postId: string): Promise<UnpublishTally | null> {
  const open = await sql<{ id: string }>`
    select id from posts where id = ${postId} and unpublish_requested_at is not null
    for update`.execute(db);
  if (open.rows.length === 0) return null;
  // A statement of its own: its snapshot sees every ask committed before the lock was granted.
  const result = await sql<UnpublishTally & { closed: number }>`${preparedMark('unpublish_close')}
    with open as (
      select unpublish_requested_at as round from posts where id = ${postId}
    ),
    closed as (
      update posts set unpublish_requested_at = null
      where id = ${postId} and unpublish_requested_at is not null
        and not exists (
          select 1 from post_targets where post_id = ${postId} and status = 'removing')
      returning id
    )
    select (select count(*) from closed)::int as closed,
      count(t.id) filter (where t.status = 'removed')::int as removed,
      count(t.id) filter (where t.status = 'remove_failed')::int as failed,
      count(t.id) filter (where t.unpublish = 'unsupported')::int as unsupported,
      count(t.id)::int as total
    from open left join post_targets t
      on t.post_id = ${postId} and t.unpublish_requested_at = open.round`.execute(db);
  const row = result.rows[0];
  if (!row || row.closed === 0) return null;
  const { removed, failed, unsupported, total } = row;
  return { removed, failed, unsupported, total };
}

export function createPostUnpublishing(
  db: Kysely<Database>,
  findById: (id: string) => Promise<PostWithTargets | null>,
): PostUnpublishing {
  return {
    async requestUnpublish(request) {
      if (!(await storeAsk(db, request))) return null;
      return findById(request.postId);
    },

    async claimRemovals(postId, { now, leaseExpiresAt }): Promise<RemovalClaim[]> {
      const result = await sql<PostTarget & { previous: Date | null; position: number }>`
        ${preparedMark('removal_claim')}
        update post_targets t set lease_expires_at = ${leaseExpiresAt.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
        from (
          select c.id, c.lease_expires_at as previous from post_targets c
          where c.post_id = ${postId} and c.status = 'removing'
            and (c.lease_expires_at is null or c.lease_expires_at <= ${now.toISOString()}::timestamptz)
          for update of c skip locked
        ) as claimable
        where t.id = claimable.id
        returning ${sql.raw(returnedTarget)}, claimable.previous as "previous",
          t.position as "position"`.execute(db);
      return [...result.rows]
        .sort((a, b) => a.position - b.position)
        .map(({ previous, position: _position, ...target }) => ({
          target,
          takenOver: previous !== null,
        }));
    },

    async releaseRemoval(targetId, error, at) {
      await releaseClaim(db, { targetId, claimed: 'removing', error, at });
    },

    async completeRemoval(targetId, completion) {
      const failed = completion.status === 'remove_failed' ? completion : null;
      const result = await sql<PostTarget>`${preparedMark('removal_complete')}
        update post_targets t set status = ${completion.status}, lease_expires_at = null,
          error_code = ${failed?.errorCode ?? null}, error_message = ${failed?.errorMessage ?? null},
          retryable = ${failed?.retryable ?? null},
          updated_at = ${completion.at.toISOString()}::timestamptz
        where t.id = ${targetId} and t.status = 'removing'
        returning ${sql.raw(returnedTarget)}`.execute(db);
      return result.rows[0] ?? null;
    },

    async closeUnpublish(postId) {
      if (db.isTransaction) return closeLocked(db, postId);
      return db.transaction().execute((tx) => closeLocked(tx, postId));
    },

    async findOpenUnpublishes(limit) {
      const rows = await db
        .selectFrom('posts')
        .select('id')
        .where('unpublish_requested_at', 'is not', null)
        .orderBy('unpublish_requested_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
