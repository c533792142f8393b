/**
 * The claim and postponement of due reads, the same for every read schedule (metric_tracks,
 * comment_tracks): a table keyed by target_id with a nullable due_at and a partial index on
 * (due_at, target_id) WHERE due_at IS NOT NULL.
 */
import { type RawBuilder, sql } from 'kysely';

export type ScheduleTable = 'metric_tracks' | 'comment_tracks';

/**
 * The due rows, earliest first, leased in the same statement. SKIP LOCKED: a row another worker
 * is claiming is left to it, so two workers never take the same one; the partial index on
 * due_at keeps the cost to the due rows. The outer rows carry the due time as it was before the
 * claim (a read pass measures lateness from it).
 */
export const claimDueStatement = <Row>(
  table: ScheduleTable,
  now: Date,
  limit: number,
  leaseUntil: Date,
): RawBuilder<Row & { claimed_due_at: Date }> => {
  const name = sql.table(table);
  return sql<Row & { claimed_due_at: Date }>`
with due as (
  select target_id, due_at from ${name}
  where due_at is not null and due_at <= ${now}
  order by due_at, target_id
  limit ${limit}
  for update skip locked
),
claimed as (
  update ${name} m set due_at = ${leaseUntil}
  from due where m.target_id = due.target_id
  returning m.*, due.due_at as claimed_due_at
)
select * from claimed order by claimed_due_at, target_id`;
};

/** Gives claimed rows back until a later time each, nothing else changed. */
export const postponeStatement = (
  table: ScheduleTable,
  postponements: readonly { targetId: string; dueAt: Date }[],
): RawBuilder<unknown> => {
  const ids = postponements.map((p) => p.targetId);
  const dues = postponements.map((p) => p.dueAt.toISOString());
  return sql`
    update ${sql.table(table)} m set due_at = p.due_at
    from unnest(${ids}::uuid[], ${dues}::timestamptz[]) as p(target_id, due_at)
    where m.target_id = p.target_id`;
};
