import { type Media, type MediaRepository, TERMINAL_POST_STATUSES } from '@social-publisher/domain';
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { lockAccountIfInTransaction } from './account-quota.ts';

const COLUMNS = [
  'media.id',
  'media.account_id as accountId',
  'media.created_by as createdBy',
  'media.name',
  'media.content_type as contentType',
  'media.size',
  'media.sha256',
  'media.filename',
  'media.created_at as createdAt',
  'media.expires_at as expiresAt',
] as const;

/** `size` is a bigint: pg reads it as a string, PGlite as a bigint; the domain wants a number. */
const toMedia = (row: Omit<Media, 'size'> & { size: unknown }): Media => ({
  ...row,
  size: Number(row.size),
});

const TERMINAL = [...TERMINAL_POST_STATUSES];

export function createMediaRepository(db: Kysely<Database>): MediaRepository {
  /** An unfinished post uses the media of the outer query's row. */
  const usedByUnfinished = (): RawBuilder<SqlBool> =>
    sql<SqlBool>`exists (
      select 1 from post_media join posts on posts.id = post_media.post_id
      where post_media.media_id = media.id
        and posts.status <> all(${sql.val(TERMINAL)}::text[]))`;

  return {
    async insert(media) {
      await db
        .insertInto('media')
        .values({
          id: media.id,
          account_id: media.accountId,
          created_by: media.createdBy,
          name: media.name,
          content_type: media.contentType,
          size: media.size,
          sha256: media.sha256,
          filename: media.filename,
          created_at: media.createdAt,
          expires_at: media.expiresAt,
        })
        .execute();
    },

    async findById(id) {
      const row = await db
        .selectFrom('media')
        .select(COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toMedia(row) : null;
    },

    async findByNames(names) {
      if (names.length === 0) return [];
      const rows = await db
        .selectFrom('media')
        .select(COLUMNS)
        .where('name', '=', sql<string>`any(${sql.val([...names])}::text[])`)
        .execute();
      return rows.map(toMedia);
    },

    async listByAccount(accountId, { limit, before }) {
      let query = db
        .selectFrom('media')
        .select(COLUMNS)
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
      if (before) {
        query = query.where(
          sql<SqlBool>`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id}::uuid)`,
        );
      }
      return (await query.execute()).map(toMedia);
    },

    /** Locks the account row first inside a unit of work (account-quota.ts). */
    async totalBytesByAccount(accountId) {
      await lockAccountIfInTransaction(db, accountId);
      const row = await db
        .selectFrom('media')
        .select(sql<string | number | bigint>`coalesce(sum(size), 0)`.as('total'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },

    async inUse(id) {
      const row = await db
        .selectFrom('media')
        .select(usedByUnfinished().as('used'))
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.used === true;
    },

    async link(postId, names) {
      if (names.length === 0) return;
      const list = sql.val([...names]);
      await sql`
        with linked as (
          insert into post_media (post_id, media_id)
          select ${postId}::uuid, id from media where name = any(${list}::text[])
          on conflict do nothing
        )
        update media set expires_at = null where name = any(${list}::text[])`.execute(db);
    },

    async settleExpiry(retentionMs) {
      const result = await db
        .updateTable('media')
        .set({
          expires_at: sql<Date>`greatest(media.created_at, (
            select max(posts.updated_at) from post_media join posts on posts.id = post_media.post_id
            where post_media.media_id = media.id)) + ${retentionMs} * interval '1 millisecond'`,
        })
        .where('expires_at', 'is', null)
        .where((eb) => eb.not(usedByUnfinished()))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async listExpired(now, limit) {
      const rows = await db
        .selectFrom('media')
        .select(COLUMNS)
        .where('expires_at', '<=', now)
        .where((eb) => eb.not(usedByUnfinished()))
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map(toMedia);
    },

    async delete(id) {
      const result = await db.deleteFrom('media').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
