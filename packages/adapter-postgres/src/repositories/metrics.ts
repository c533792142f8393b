import {
  type DailyMetrics,
  type DailyQuery,
  METRIC_NAMES,
  type MetricsRepository,
  type MetricTrack,
} from '@social-publisher/domain';
import { type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database, MetricSnapshotsTable, MetricTracksTable } from '../schema.ts';
import { claimDueStatement, postponeStatement } from './due-claim.ts';
import {
  metricColumnList,
  metricColumnTypes,
  metricsOf,
  snapshotFromRow,
  toCount,
  trackFromRow,
  updateRow,
} from './metrics-rows.ts';

const DAY_MS = 86_400_000;

type TrackRow = Selectable<MetricTracksTable>;

/** Each metric column of the track from the last read of the call, or kept without one. */
const latestMetricsSet = sql.raw(
  METRIC_NAMES.map(
    (name) => `${name} = case when r.target_id is null then m.${name} else r.${name} end`,
  ).join(',\n  '),
);

/**
 * Any number of updates in one statement, so all apply or none. The tracks are locked in
 * target order first (two statements over the same tracks wait instead of deadlocking); an
 * update of a track that does not exist is dropped, its snapshot too. Every snapshot is
 * appended; a track takes the last update of the call and the numbers of its last read.
 */
const recordStatement = (rows: unknown[]) => sql`
with u as (
  select * from json_to_recordset(${JSON.stringify(rows)}::json) as u(
    n int, target_id uuid, state text, step int, due_at timestamptz, error text,
    snapshot_id uuid, taken_at timestamptz, raw jsonb, sandbox boolean, ${metricColumnTypes})
),
locked as (
  select target_id from metric_tracks where target_id in (select target_id from u)
  order by target_id for update
),
appended as (
  insert into metric_snapshots (id, target_id, taken_at, raw, sandbox, ${metricColumnList('')})
  select u.snapshot_id, u.target_id, u.taken_at, u.raw, u.sandbox, ${metricColumnList('u.')}
  from u join locked on locked.target_id = u.target_id
  where u.snapshot_id is not null
),
latest as (select distinct on (target_id) * from u order by target_id, n desc),
last_read as (
  select distinct on (target_id) * from u where snapshot_id is not null
  order by target_id, n desc
)
update metric_tracks m set
  state = l.state, step = l.step, due_at = l.due_at, error = l.error,
  taken_at = coalesce(r.taken_at, m.taken_at),
  ${latestMetricsSet}
from latest l
  join locked on locked.target_id = l.target_id
  left join last_read r on r.target_id = l.target_id
where m.target_id = l.target_id`;

/** SUM(bigint) is numeric: cast back to bigint (a number, int8.ts); a SUM of nulls stays null. */
const dailySums = sql.raw(METRIC_NAMES.map((name) => `sum(${name})::bigint as ${name}`).join(', '));

/**
 * Per UTC day of publication, the posts with a target published that day and their targets'
 * latest numbers summed. On (account_id, published_at), or (social_account_id, published_at)
 * for one connection.
 */
function dailyStatement(query: DailyQuery) {
  const until = new Date(query.to.getTime() + DAY_MS);
  const connection = query.socialAccountId
    ? sql`and social_account_id = ${query.socialAccountId}`
    : sql``;
  const platform = query.platform ? sql`and platform = ${query.platform}` : sql``;
  return sql<Record<string, unknown> & { date: string; posts: unknown }>`
    select to_char(published_at at time zone 'UTC', 'YYYY-MM-DD') as date,
           count(distinct post_id) as posts, ${dailySums}
    from metric_tracks
    where account_id = ${query.accountId}
      and published_at >= ${query.from} and published_at < ${until}
      ${connection} ${platform}
    group by 1
    order by 1`;
}

export function createMetricsRepository(db: Kysely<Database>): MetricsRepository {
  return {
    async claimDue(now, limit, leaseUntil) {
      if (limit <= 0) return [];
      const claim = claimDueStatement<TrackRow>('metric_tracks', now, limit, leaseUntil);
      const { rows } = await claim.execute(db);
      return rows.map((row): MetricTrack => ({ ...trackFromRow(row), dueAt: row.claimed_due_at }));
    },

    async record(updates) {
      if (updates.length === 0) return;
      await recordStatement(updates.map(updateRow)).execute(db);
    },

    async postpone(postponements) {
      if (postponements.length === 0) return;
      await postponeStatement('metric_tracks', postponements).execute(db);
    },

    async listByPost(postId) {
      const rows = await db
        .selectFrom('metric_tracks')
        .selectAll()
        .where('post_id', '=', postId)
        .orderBy('target_id')
        .execute();
      return rows.map(trackFromRow);
    },

    async history(postId, targetId, { limit, after }) {
      let tracks = db.selectFrom('metric_tracks').select('target_id').where('post_id', '=', postId);
      if (targetId !== null) tracks = tracks.where('target_id', '=', targetId);
      let query = db
        .selectFrom('metric_snapshots')
        .selectAll()
        .where('target_id', 'in', tracks)
        .orderBy('taken_at')
        .orderBy('id')
        .limit(limit);
      if (after) {
        query = query.where(
          sql<SqlBool>`(taken_at, id) > (${after.takenAt}::timestamptz, ${after.id}::uuid)`,
        );
      }
      const rows: Selectable<MetricSnapshotsTable>[] = await query.execute();
      return rows.map(snapshotFromRow);
    },

    async requestRefresh(postId, now, readBefore) {
      const result = await db
        .updateTable('metric_tracks')
        .set({ due_at: now })
        .where('post_id', '=', postId)
        .where('state', '<>', 'gone')
        .where((eb) => eb.or([eb('taken_at', 'is', null), eb('taken_at', '<=', readBefore)]))
        .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '>', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async daily(query) {
      const { rows } = await dailyStatement(query).execute(db);
      return rows.map(
        (row): DailyMetrics => ({
          date: row.date,
          posts: toCount(row.posts) ?? 0,
          metrics: metricsOf(row),
        }),
      );
    },

    async deleteSnapshotsBefore(cutoff, limit) {
      if (limit <= 0) return 0;
      const result = await sql`
        delete from metric_snapshots where id in (
          select id from metric_snapshots where taken_at < ${cutoff}
          limit ${limit}
          for update skip locked)`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
