/**
 * The query plans that hold the history figures, printed at the largest size: the statements
 * of the list (first and a deeper page), the due scan, the expired-lease scan, the idempotency
 * sweep and the retention sweep, written as the repositories send them (parameters inlined).
 */
import { type Kysely, sql } from 'kysely';
import type { SeededUser } from '../../lib/infra.ts';
import type { Out } from '../../lib/report.ts';

// biome-ignore lint/suspicious/noExplicitAny: raw SQL against the bench's own tables
type AnyDb = Kysely<any>;

async function explain(db: AnyDb, statement: ReturnType<typeof sql>): Promise<string[]> {
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (costs off) ${statement}`.execute(
    db,
  );
  return rows.map((row) => row['QUERY PLAN']);
}

export async function printPlans(db: AnyDb, seeded: SeededUser, out: Out): Promise<void> {
  const user = seeded.userId;
  const account = seeded.ctx.accountId;
  const statements: Array<[string, ReturnType<typeof sql>]> = [
    [
      'GET /posts first page',
      sql`select id from posts where created_by = ${sql.lit(user)} and account_id = any(array[${sql.lit(account)}]::uuid[])
          order by created_at desc, id desc limit 51`,
    ],
    [
      'GET /posts deeper page',
      sql`select id from posts where created_by = ${sql.lit(user)} and account_id = any(array[${sql.lit(account)}]::uuid[])
            and (created_at, id) < (now() - interval '180 days', '00000000-0000-0000-0000-000000000000'::uuid)
          order by created_at desc, id desc limit 51`,
    ],
    [
      'due scan',
      sql`select id from posts where status in ('scheduled', 'queued', 'publishing')
            and coalesce(scheduled_at, created_at) <= now() + interval '1 minute'
          order by coalesce(scheduled_at, created_at), id limit 500`,
    ],
    [
      'expired leases',
      sql`select id from post_targets where status = 'publishing' and lease_expires_at < now()
          order by lease_expires_at, id limit 500`,
    ],
    ['idempotency sweep', sql`delete from idempotency_keys where expires_at <= now()`],
    [
      'retention sweep',
      sql`select p.id from posts p where p.status = any(array['published','partial','failed','cancelled'])
            and p.updated_at < now() - interval '300 days'
          limit 1000`,
    ],
  ];
  for (const [name, statement] of statements) {
    out(`history plan, ${name}:`);
    for (const line of await explain(db, statement)) out(`  ${line}`);
  }
}
