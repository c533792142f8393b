import type {
  ActiveSeries,
  PostSeries,
  PostSeriesRepository,
  SeriesOccurrence,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

const seriesColumns = [
  'post_series.id as id',
  'post_series.account_id as accountId',
  'post_series.created_by as createdBy',
  'post_series.rrule as rrule',
  'post_series.timezone as timezone',
  'post_series.count as count',
  'post_series.until as until',
  'post_series.first_at as firstAt',
  'post_series.template as template',
  'post_series.status as status',
  'post_series.created_at as createdAt',
  'post_series.updated_at as updatedAt',
] as const;

export function createPostSeriesRepository(db: Kysely<Database>): PostSeriesRepository {
  return {
    async insert(series: PostSeries): Promise<void> {
      await db
        .insertInto('post_series')
        .values({
          id: series.id,
          account_id: series.accountId,
          created_by: series.createdBy,
          rrule: series.rrule,
          timezone: series.timezone,
          count: series.count,
          until: series.until,
          first_at: series.firstAt,
          template: JSON.stringify(series.template),
          status: series.status,
          created_at: series.createdAt,
          updated_at: series.updatedAt,
        })
        .execute();
    },

    async findById(id: string): Promise<PostSeries | null> {
      const row = await db
        .selectFrom('post_series')
        .select(seriesColumns)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ?? null;
    },

    /**
     * Served by the partial index on active series and the occurrences' primary key; a series
     * without occurrences comes first.
     */
    async listNeedingOccurrences(now: Date, ahead: number, limit: number): Promise<ActiveSeries[]> {
      const rows = await db
        .selectFrom('post_series')
        .select(seriesColumns)
        .select((eb) =>
          eb
            .selectFrom('post_series_occurrences as o')
            .select((o) => o.fn.max('o.occurrence_at').as('last'))
            .whereRef('o.series_id', '=', 'post_series.id')
            .as('lastOccurrenceAt'),
        )
        .where('status', '=', 'active')
        .where(
          (eb) =>
            eb
              .selectFrom('post_series_occurrences as u')
              .select((u) => u.fn.countAll<number>().as('upcoming'))
              .whereRef('u.series_id', '=', 'post_series.id')
              .where('u.occurrence_at', '>', now),
          '<',
          ahead,
        )
        .orderBy(sql`"lastOccurrenceAt" asc nulls first`)
        .limit(limit)
        .execute();
      return rows.map(({ lastOccurrenceAt, ...series }) => ({
        series,
        lastOccurrenceAt: (lastOccurrenceAt as Date | null) ?? null,
      }));
    },

    /**
     * The series row is locked FOR UPDATE (and must be active) before the occurrence is
     * inserted, so a stop either waits for this claim or makes it fail; ON CONFLICT leaves an
     * occurrence another worker claimed first.
     */
    async claimOccurrence(seriesId: string, occurrenceAt: Date, postId: string): Promise<boolean> {
      const result = await sql<{ post_id: string }>`
        insert into post_series_occurrences (series_id, occurrence_at, post_id)
        select s.id, ${occurrenceAt}::timestamptz, ${postId}::uuid
        from post_series s
        where s.id = ${seriesId}::uuid and s.status = 'active'
        for update of s
        on conflict (series_id, occurrence_at) do nothing
        returning post_id`.execute(db);
      return result.rows.length > 0;
    },

    async listOccurrences(seriesId: string): Promise<SeriesOccurrence[]> {
      return db
        .selectFrom('post_series_occurrences')
        .select(['occurrence_at as occurrenceAt', 'post_id as postId'])
        .where('series_id', '=', seriesId)
        .orderBy('occurrence_at')
        .execute();
    },

    async setStatus(id, from, to, at): Promise<boolean> {
      if (from.length === 0) return false;
      const result = await db
        .updateTable('post_series')
        .set({ status: to, updated_at: at })
        .where('id', '=', id)
        .where('status', 'in', from)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
