import type {
  Post,
  PostEdit,
  PostPage,
  PostRepository,
  PostStatus,
  PostTarget,
  PostTransition,
  PostWithTargets,
  ResumeState,
} from '@social-publisher/domain';
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { postColumns, postFromJoinedRows, targetColumns } from './columns.ts';
import { decideApproval } from './post-approval.ts';
import { postRetention } from './post-retention.ts';
import { moveOne, movePostsStatus } from './post-transition.ts';
import {
  type CompleteInput,
  completeTargetsMany,
  type StartInput,
  startPublishMany,
} from './publish-run.ts';
import { releaseClaim } from './target-release.ts';
import { createPostUnpublishing } from './unpublish.ts';

const NOT_DONE: readonly PostStatus[] = ['scheduled', 'queued', 'publishing'];

/** The target columns again, aliased `t_<field>`, for a post LEFT JOIN its targets. */
const joinedTargetColumns = targetColumns.map((column) =>
  column.replace(' as ', ' as t_'),
) as unknown as readonly ['post_targets.id as t_id'];

/**
 * A time as its JSON text, written here rather than by JSON.stringify: an object holding a
 * Date (which has toJSON) leaves V8's fast path, and the rows of a create took 7.3 µs to
 * serialise instead of 4.4.
 */
const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** A post as a JSON row of `posts` (json_populate_recordset reads jsonb and arrays as such). */
const postRow = (post: PostWithTargets) => ({
  id: post.id,
  account_id: post.accountId,
  created_by: post.createdBy,
  content: post.content,
  media_urls: post.mediaUrls,
  platform_options: post.platformOptions ?? {},
  thread: post.thread,
  first_comment: post.firstComment,
  scheduled_at: isoOrNull(post.scheduledAt),
  status: post.status,
  created_at: post.createdAt.toISOString(),
  updated_at: post.updatedAt.toISOString(),
  series_id: post.seriesId,
  rejection_reason: post.rejectionReason,
});

const targetRows = (post: PostWithTargets) =>
  post.targets.map((target, position) => ({
    id: target.id,
    post_id: post.id,
    position,
    platform: target.platform,
    social_account_id: target.socialAccountId,
    sandbox: target.sandbox,
    status: target.status,
    attempts: target.attempts,
    error_code: target.errorCode,
    error_message: target.errorMessage,
    retryable: target.retryable,
    platform_post_id: target.platformPostId,
    platform_url: target.platformUrl,
    thread_post_ids: target.threadPostIds,
    first_comment_id: target.firstCommentId,
    resume_state: target.resumeState,
    lease_expires_at: isoOrNull(target.leaseExpiresAt),
    published_at: isoOrNull(target.publishedAt),
    unpublish: target.unpublish,
    updated_at: target.updatedAt.toISOString(),
  }));

const POST_INSERT_COLUMNS = sql.raw(
  'id, account_id, created_by, content, media_urls, platform_options, thread, first_comment, scheduled_at, status, created_at, updated_at, series_id, rejection_reason',
);
const TARGET_COLUMN_NAMES =
  'id, post_id, position, platform, social_account_id, sandbox, status, attempts, error_code, error_message, retryable, platform_post_id, platform_url, thread_post_ids, first_comment_id, resume_state, lease_expires_at, published_at, unpublish, updated_at';
const TARGET_INSERT_COLUMNS = sql.raw(TARGET_COLUMN_NAMES);

/** The insert columns of new targets, their positions counted on from `last_position`. */
const TARGET_INSERT_COLUMNS_FROM_NEW = TARGET_COLUMN_NAMES.split(', ')
  .map((column) =>
    column === 'position' ? 'last_position.position + 1 + new.position' : `new.${column}`,
  )
  .join(', ');

/** Newest first (created_at, id descending); with `page`, after its cursor and at most its limit. */
function pageOf<Q extends SelectQueryBuilder<Database, 'posts', object>>(
  query: Q,
  page?: PostPage,
): Q {
  let paged = query;
  const before = page?.before;
  if (before !== undefined) {
    paged = paged.where((eb) =>
      eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before.createdAt, before.id)),
    ) as Q;
  }
  paged = paged.orderBy('created_at', 'desc').orderBy('id', 'desc') as Q;
  return (page === undefined ? paged : paged.limit(page.limit)) as Q;
}

export function createPostRepository(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): PostRepository {
  const start = batchedOrDirect(options, {
    keyOf: (input: StartInput) => input.postId,
    maxSize: BATCH_MAX,
    run: (inputs) => startPublishMany(db, inputs),
  });
  const complete = batchedOrDirect(options, {
    keyOf: (input: CompleteInput) => input.targetId,
    maxSize: BATCH_MAX,
    run: (inputs) => completeTargetsMany(db, inputs),
  });
  const move = batchedOrDirect(options, {
    keyOf: (input: PostTransition) => input.postId,
    maxSize: BATCH_MAX,
    // Moves come from many paths (cancel, approval, finalize): one refused stays its own.
    isolateFailures: true,
    run: (inputs) =>
      inputs.length === 1
        ? moveOne(db, inputs[0] as PostTransition).then((moved) => [moved])
        : movePostsStatus(db, inputs),
  });

  /**
   * Posts and their targets in one statement: all stored, or none. The rows travel as two JSON
   * parameters (one serialisation, whatever the number of posts).
   */
  async function insertAll(posts: PostWithTargets[]): Promise<void> {
    const postsJson = JSON.stringify(posts.map(postRow));
    const targetsJson = JSON.stringify(posts.flatMap(targetRows));
    await sql`${preparedMark('posts_insert')}
      with inserted_posts as (
        insert into posts (${POST_INSERT_COLUMNS})
        select ${POST_INSERT_COLUMNS} from json_populate_recordset(null::posts, ${postsJson}::json)
      )
      insert into post_targets (${TARGET_INSERT_COLUMNS})
      select ${TARGET_INSERT_COLUMNS}
      from json_populate_recordset(null::post_targets, ${targetsJson}::json)`.execute(db);
  }

  /** The inserts of one moment together; a failed one is retried alone (isolateFailures). */
  const insert = batchedOrDirect(options, {
    keyOf: (post: PostWithTargets) => post.id,
    maxSize: BATCH_MAX,
    isolateFailures: true,
    async run(posts): Promise<null[]> {
      await insertAll(posts);
      return posts.map(() => null);
    },
  });

  /** Targets of the given posts in one query, grouped by post in their stored order. */
  async function attachTargets(posts: Post[]): Promise<PostWithTargets[]> {
    const withTargets = posts as PostWithTargets[];
    if (posts.length === 0) return withTargets;
    const byPost = new Map<string, PostTarget[]>();
    for (const post of withTargets) {
      const targets: PostTarget[] = [];
      post.targets = targets;
      byPost.set(post.id, targets);
    }
    const ids = posts.map((post) => post.id);
    const rows = await db
      .selectFrom('post_targets')
      .select(targetColumns)
      .where('post_id', '=', sql<string>`any(${ids}::uuid[])`)
      .orderBy('post_id')
      .orderBy('position')
      .execute();
    for (const target of rows) byPost.get(target.postId)?.push(target);
    return withTargets;
  }

  /** One query: the post LEFT JOIN its targets, one row per target, in stored order. */
  async function findById(id: string): Promise<PostWithTargets | null> {
    const rows = await db
      .selectFrom('posts')
      .leftJoin('post_targets', 'post_targets.post_id', 'posts.id')
      .select(postColumns)
      .select(joinedTargetColumns)
      .where('posts.id', '=', id)
      .orderBy('post_targets.position')
      .execute();
    return postFromJoinedRows(rows as unknown as Array<Record<string, unknown>>);
  }

  return {
    ...createPostUnpublishing(db, findById),
    findById,
    /**
     * One statement (a data-modifying CTE), so the post and its targets are stored together
     * even when the caller forgot the unit of work; shared with the inserts of the same moment.
     */
    async insert(post: PostWithTargets): Promise<void> {
      await insert(post);
    },

    /**
     * Two queries whatever the number of posts: the posts, then all their targets. A page is a
     * row-value comparison `(created_at, id) < (before)` plus LIMIT, served by the
     * (created_by, created_at desc) index; the accounts are one array parameter
     * (`account_id = any(...)`), so the statement is the same for 1 account or 50.
     */
    async listByCreator(
      createdBy: string,
      accountIds: readonly string[],
      page?: PostPage,
      status?: PostStatus,
    ): Promise<PostWithTargets[]> {
      if (accountIds.length === 0) return [];
      let query = db
        .selectFrom('posts')
        .select(postColumns)
        .where('created_by', '=', createdBy)
        .where('account_id', '=', sql<string>`any(${[...accountIds]}::uuid[])`);
      // A filter on the creator's index: a user's posts are read newest first until the page fills.
      if (status !== undefined) query = query.where('status', '=', status);
      return attachTargets(await pageOf(query, page).execute());
    },

    /**
     * Served by posts_pending_approval_idx for `pending_approval` (the only status asked of it
     * today): the index holds nothing but waiting posts, by account, newest first.
     */
    async listByStatus(
      accountIds: readonly string[],
      status: PostStatus,
      page?: PostPage,
    ): Promise<PostWithTargets[]> {
      if (accountIds.length === 0) return [];
      const query = db
        .selectFrom('posts')
        .select(postColumns)
        .where('account_id', '=', sql<string>`any(${[...accountIds]}::uuid[])`)
        .where('status', '=', status);
      return attachTargets(await pageOf(query, page).execute());
    },

    /** One statement (post-approval.ts). */
    decideApproval: (decision) => decideApproval(db, decision),

    /**
     * One statement: the post's update decides (its row lock orders it with a publish start,
     * which re-checks status and scheduled_at once it gets the row), and the target changes
     * happen only when it applied. New targets are placed after every existing one.
     */
    async applyEdit(edit: PostEdit): Promise<boolean> {
      if (edit.from.length === 0) return false;
      const added = JSON.stringify(
        targetRows({ id: edit.postId, targets: edit.addTargets } as PostWithTargets),
      );
      const result = await sql<{ id: string }>`${preparedMark('post_edit')}
        with edited as (
          update posts set
            content = ${edit.content},
            media_urls = ${edit.mediaUrls}::text[],
            platform_options = ${JSON.stringify(edit.platformOptions ?? {})}::jsonb,
            thread = ${JSON.stringify(edit.thread)}::jsonb,
            first_comment = ${edit.firstComment},
            scheduled_at = ${isoOrNull(edit.scheduledAt)}::timestamptz,
            status = ${edit.status},
            updated_at = ${edit.at.toISOString()}::timestamptz
          where id = ${edit.postId} and status = any(${[...edit.from]}::text[])
          returning id
        ),
        removed as (
          delete from post_targets
          where post_id in (select id from edited)
            and id = any(${edit.removeTargetIds}::uuid[]) and status = 'pending'
        ),
        last_position as (
          select coalesce(max(position), -1) as position from post_targets
          where post_id = ${edit.postId}
        ),
        inserted as (
          insert into post_targets (${TARGET_INSERT_COLUMNS})
          select ${sql.raw(TARGET_INSERT_COLUMNS_FROM_NEW)}
          from json_populate_recordset(null::post_targets, ${added}::json) as new
          cross join last_position
          where exists (select 1 from edited)
        )
        select id from edited`.execute(db);
      return result.rows.length > 0;
    },

    /** One statement for this call and the others of the same moment (post-transition.ts). */
    async transitionStatus(postId, from, to, at): Promise<boolean> {
      if (from.length === 0) return false;
      return move({ postId, from, to, at });
    },

    /** One statement for this call and the others of the same moment (publish-run.ts). */
    startPublish: (postId, request) => start({ postId, request }),

    async renewLease(targetId: string, leaseExpiresAt: Date, at: Date): Promise<boolean> {
      const result = await db
        .updateTable('post_targets')
        .set({ lease_expires_at: leaseExpiresAt, updated_at: at })
        .where('id', '=', targetId)
        // A `removing` target is held only while claimed (a released one has no lease).
        .where((eb) =>
          eb.or([
            eb('status', '=', 'publishing'),
            eb.and([eb('status', '=', 'removing'), eb('lease_expires_at', 'is not', null)]),
          ]),
        )
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** The state is kept whatever the status; the lease is extended only while publishing. */
    async saveResumeState(
      targetId: string,
      state: ResumeState,
      leaseExpiresAt: Date,
      at: Date,
    ): Promise<void> {
      await db
        .updateTable('post_targets')
        .set((eb) => ({
          resume_state: JSON.stringify(state),
          lease_expires_at: eb
            .case()
            .when('status', '=', 'publishing')
            .then(leaseExpiresAt)
            .else(eb.ref('lease_expires_at'))
            .end(),
          updated_at: at,
        }))
        .where('id', '=', targetId)
        .execute();
    },

    async releaseTarget(targetId, error, at): Promise<void> {
      await releaseClaim(db, { targetId, claimed: 'publishing', back: 'pending', error, at });
    },

    /** One statement for this call and the others of the same moment (publish-run.ts). */
    completeTarget: (targetId, completion) => complete({ targetId, completion }),

    async cancelPendingTargets(postId: string, at: Date): Promise<void> {
      await db
        .updateTable('post_targets')
        .set({ status: 'cancelled', updated_at: at })
        .where('post_id', '=', postId)
        .where('status', '=', 'pending')
        .execute();
    },

    async findDuePosts(until: Date, limit: number): Promise<Post[]> {
      // One range of posts_due_at_idx (0018_due_at), read in the order it is returned.
      return db
        .selectFrom('posts')
        .select(postColumns)
        .where('status', 'in', NOT_DONE)
        .where(sql`coalesce(scheduled_at, created_at)`, '<=', until)
        .orderBy(sql`coalesce(scheduled_at, created_at)`)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    async findExpiredLeases(now: Date, limit: number): Promise<PostTarget[]> {
      return db
        .selectFrom('post_targets')
        .select(targetColumns)
        .where('status', '=', 'publishing')
        .where('lease_expires_at', '<', now)
        .orderBy('lease_expires_at')
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    ...postRetention(db),
  };
}
