import type { SlotRepository, SlotSet } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

export function createSlotRepository(db: Kysely<Database>): SlotRepository {
  return {
    async put(set: SlotSet): Promise<void> {
      const row = {
        social_account_id: set.socialAccountId,
        timezone: set.timezone,
        slots: JSON.stringify(set.slots),
        updated_at: set.updatedAt,
      };
      await db
        .insertInto('social_account_slots')
        .values(row)
        .onConflict((oc) =>
          oc.column('social_account_id').doUpdateSet({
            timezone: row.timezone,
            slots: row.slots,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },

    async find(socialAccountId: string): Promise<SlotSet | null> {
      const row = await db
        .selectFrom('social_account_slots')
        .select([
          'social_account_id as socialAccountId',
          'timezone',
          'slots',
          'updated_at as updatedAt',
        ])
        .where('social_account_id', '=', socialAccountId)
        .executeTakeFirst();
      return row ?? null;
    },

    /**
     * A transaction-scoped advisory lock per connection (released at commit or rollback): it
     * holds across API processes, and the caller takes them in sorted order.
     */
    async lock(socialAccountIds: readonly string[]): Promise<void> {
      for (const id of socialAccountIds) {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`slots:${id}`}, 0))`.execute(db);
      }
    },

    async scheduledTimes(socialAccountIds, from, to): Promise<Date[]> {
      if (socialAccountIds.length === 0) return [];
      const rows = await db
        .selectFrom('posts')
        .select('posts.scheduled_at as at')
        .distinct()
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('post_targets')
              .select(sql`1`.as('one'))
              .whereRef('post_targets.post_id', '=', 'posts.id')
              .where(
                'post_targets.social_account_id',
                '=',
                sql<string>`any(${socialAccountIds}::uuid[])`,
              ),
          ),
        )
        .where('posts.status', 'not in', ['cancelled', 'rejected'])
        .where('posts.scheduled_at', '>', from)
        .where('posts.scheduled_at', '<=', to)
        .execute();
      return rows.flatMap((row) => (row.at === null ? [] : [row.at]));
    },
  };
}
