import type { CommentsRepository, CommentTrackUpdate, InboxQuery } from '@social-publisher/domain';
import { type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type {
  CommentRepliesTable,
  CommentsTable,
  CommentTracksTable,
  Database,
} from '../schema.ts';
import { commentFromRow, commentRow, commentTrackFromRow, replyFromRow } from './comment-rows.ts';
import { claimDueStatement, postponeStatement } from './due-claim.ts';

type TrackRow = Selectable<CommentTracksTable>;

const updateRow = (update: CommentTrackUpdate) => ({
  target_id: update.targetId,
  state: update.state,
  step: update.step,
  due_at: update.dueAt?.toISOString() ?? null,
  error: update.error,
  read_at: update.readAt?.toISOString() ?? null,
});

/** Any number of track updates in one statement; the tracks locked in target order first. */
const recordStatement = (rows: unknown[]) => sql`
with u as (
  select distinct on (target_id) * from json_to_recordset(${JSON.stringify(rows)}::json) as u(
    n int, target_id uuid, state text, step int, due_at timestamptz, error text,
    read_at timestamptz)
  order by target_id, n desc
),
locked as (
  select target_id from comment_tracks where target_id in (select target_id from u)
  order by target_id for update
)
update comment_tracks m set
  state = u.state, step = u.step, due_at = u.due_at, error = u.error,
  read_at = coalesce(u.read_at, m.read_at)
from u join locked on locked.target_id = u.target_id
where m.target_id = u.target_id`;

/** New comments only: one per (target, platform id), those already stored skipped. */
const insertNewStatement = (rows: unknown[]) => sql<Selectable<CommentsTable>>`
insert into comments (id, account_id, post_id, target_id, social_account_id, platform,
  platform_comment_id, parent_platform_id, author_id, author_name, author_handle, text,
  created_at, hidden, mine, read, received_at, sandbox)
select r.id, r.account_id, r.post_id, r.target_id, r.social_account_id, r.platform,
  r.platform_comment_id, r.parent_platform_id, r.author_id, r.author_name, r.author_handle,
  r.text, r.created_at, r.hidden, r.mine, r.read, r.received_at, r.sandbox
from json_to_recordset(${JSON.stringify(rows)}::json) as r(
  id uuid, account_id uuid, post_id uuid, target_id uuid, social_account_id uuid, platform text,
  platform_comment_id text, parent_platform_id text, author_id text, author_name text,
  author_handle text, text text, created_at timestamptz, hidden boolean, mine boolean,
  read boolean, received_at timestamptz, sandbox boolean)
where exists (select 1 from post_targets t where t.id = r.target_id)
on conflict do nothing
returning *`;

/**
 * The `sending` replies recorded before `intentBefore` that no look-up holds (only `id` when
 * given), oldest intent first, held until `holdUntil` in the same statement. SKIP LOCKED: a
 * reply another worker is claiming is left to it, so two never take the same one; the partial
 * index on the `sending` rows keeps the cost to them.
 */
const claimLookupStatement = (
  claim: { intentBefore: Date; now: Date; limit: number; holdUntil: Date },
  id?: string,
) => sql<Selectable<CommentRepliesTable>>`
with abandoned as (
  select id from comment_replies
  where state = 'sending' and intent_at < ${claim.intentBefore}
    and (lookup_until is null or lookup_until <= ${claim.now})
    ${id === undefined ? sql`` : sql`and id = ${id}`}
  order by intent_at, id
  limit ${claim.limit}
  for update skip locked
)
update comment_replies r set lookup_until = ${claim.holdUntil}
from abandoned where r.id = abandoned.id
returning r.*`;

/** Comments with their parent's id: the parent is found by its platform id under the target. */
function selectComments(db: Kysely<Database>) {
  return db
    .selectFrom('comments as c')
    .leftJoin('comments as p', (join) =>
      join
        .onRef('p.target_id', '=', 'c.target_id')
        .onRef('p.platform_comment_id', '=', 'c.parent_platform_id'),
    )
    .selectAll('c')
    .select('p.id as parent_id');
}

/** Keyset: rows strictly after `before` in (created_at desc, id desc) order. */
const olderThan = (before: { createdAt: Date; id: string }) =>
  sql<SqlBool>`(c.created_at, c.id) < (${before.createdAt}::timestamptz, ${before.id}::uuid)`;

function inboxQuery(db: Kysely<Database>, query: InboxQuery) {
  let select = selectComments(db).where('c.account_id', '=', query.accountId);
  if (query.platform) select = select.where('c.platform', '=', query.platform);
  if (query.unreadOnly) select = select.where('c.read', '=', false);
  if (query.before) select = select.where(olderThan(query.before));
  return select.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(query.limit);
}

export function createCommentsRepository(db: Kysely<Database>): CommentsRepository {
  return {
    async claimDue(now, limit, leaseUntil) {
      if (limit <= 0) return [];
      const claim = claimDueStatement<TrackRow>('comment_tracks', now, limit, leaseUntil);
      const { rows } = await claim.execute(db);
      return rows.map((row) => ({ ...commentTrackFromRow(row), dueAt: row.claimed_due_at }));
    },
    async record(updates) {
      if (updates.length === 0) return;
      await recordStatement(updates.map((u, n) => ({ n, ...updateRow(u) }))).execute(db);
    },
    async postpone(postponements) {
      if (postponements.length === 0) return;
      await postponeStatement('comment_tracks', postponements).execute(db);
    },
    async tracksOfPost(postId) {
      const rows = await db
        .selectFrom('comment_tracks')
        .selectAll()
        .where('post_id', '=', postId)
        .orderBy('target_id')
        .execute();
      return rows.map(commentTrackFromRow);
    },
    async requestRefresh(postId, now, readBefore) {
      const result = await db
        .updateTable('comment_tracks')
        .set({ due_at: now })
        .where('post_id', '=', postId)
        .where('state', '<>', 'gone')
        .where((eb) => eb.or([eb('read_at', 'is', null), eb('read_at', '<=', readBefore)]))
        .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '>', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async insertNew(comments) {
      if (comments.length === 0) return [];
      const { rows } = await insertNewStatement(comments.map(commentRow)).execute(db);
      return rows.map(commentFromRow);
    },
    async findById(id) {
      const row = await selectComments(db).where('c.id', '=', id).executeTakeFirst();
      return row ? commentFromRow(row) : null;
    },
    async findByPlatformId(targetId, platformCommentId) {
      const row = await selectComments(db)
        .where('c.target_id', '=', targetId)
        .where('c.platform_comment_id', '=', platformCommentId)
        .executeTakeFirst();
      return row ? commentFromRow(row) : null;
    },
    async listByPost(postId, targetId, page) {
      let select = selectComments(db).where('c.post_id', '=', postId);
      if (targetId !== null) select = select.where('c.target_id', '=', targetId);
      if (page.before) select = select.where(olderThan(page.before));
      const rows = await select
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .limit(page.limit)
        .execute();
      return rows.map(commentFromRow);
    },
    async inbox(query) {
      return (await inboxQuery(db, query).execute()).map(commentFromRow);
    },
    async markRead(accountId, ids) {
      if (ids.length === 0) return 0;
      const result = await db
        .updateTable('comments')
        .set({ read: true })
        .where('account_id', '=', accountId)
        .where('id', 'in', [...new Set(ids)])
        .where('read', '=', false)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async setHidden(id, hidden) {
      await db.updateTable('comments').set({ hidden }).where('id', '=', id).execute();
    },
    async delete(id) {
      await db.deleteFrom('comments').where('id', '=', id).execute();
    },
    async createReply(reply) {
      const inserted = await db
        .insertInto('comment_replies')
        .values({
          id: reply.id,
          account_id: reply.accountId,
          comment_id: reply.commentId,
          idempotency_key: reply.idempotencyKey,
          text: reply.text,
          state: reply.state,
          intent_at: reply.intentAt,
          platform_comment_id: reply.platformCommentId,
          reply_comment_id: reply.replyCommentId,
          error: reply.error,
        })
        .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) return { reply: replyFromRow(inserted), created: true };
      const existing = await this.findReply(reply.accountId, reply.idempotencyKey);
      if (!existing) throw new Error('comment reply vanished between insert and read');
      return { reply: existing, created: false };
    },
    async findReply(accountId, idempotencyKey) {
      const row = await db
        .selectFrom('comment_replies')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst();
      return row ? replyFromRow(row) : null;
    },
    async endReply(id, end) {
      const result = await db
        .updateTable('comment_replies')
        .set({
          state: end.state,
          platform_comment_id: end.platformCommentId ?? null,
          reply_comment_id: end.replyCommentId ?? null,
          error: end.error ?? null,
        })
        .where('id', '=', id)
        .where('state', '=', 'sending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async restartReply(id, intentAt) {
      const result = await db
        .updateTable('comment_replies')
        .set({ state: 'sending', intent_at: intentAt, error: null, lookup_until: null })
        .where('id', '=', id)
        .where('state', '=', 'failed')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async claimAbandonedReplies(intentBefore, now, limit, holdUntil) {
      if (limit <= 0) return [];
      const claim = claimLookupStatement({ intentBefore, now, limit, holdUntil });
      const { rows } = await claim.execute(db);
      return rows
        .map(replyFromRow)
        .sort((a, b) => a.intentAt.getTime() - b.intentAt.getTime() || a.id.localeCompare(b.id));
    },
    async claimReplyLookup(id, intentBefore, now, holdUntil) {
      const claim = claimLookupStatement({ intentBefore, now, limit: 1, holdUntil }, id);
      return (await claim.execute(db)).rows.length > 0;
    },
  };
}
