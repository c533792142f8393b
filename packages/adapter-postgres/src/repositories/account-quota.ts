/**
 * Counting what an account holds, for its quotas. Inside a unit of work the account row is
 * locked first, so that "count, then insert if below the limit" cannot be raced by a
 * concurrent transaction on PostgreSQL's READ COMMITTED: the second waits here until the first
 * commits (PGlite runs one transaction at a time anyway).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export async function lockAccountIfInTransaction(
  db: Kysely<Database>,
  accountId: string,
): Promise<void> {
  if (!db.isTransaction) return;
  await db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

/** The rows of `table` the account holds, counted after locking the account (see above). */
export async function countOfAccount(
  db: Kysely<Database>,
  table: 'api_keys' | 'social_accounts' | 'webhooks',
  accountId: string,
): Promise<number> {
  await lockAccountIfInTransaction(db, accountId);
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
