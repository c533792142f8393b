import {
  reachesConnections,
  type Webhook,
  type WebhookEvent,
  type WebhookRepository,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import type { Database } from '../schema.ts';
import { countOfAccount } from './account-quota.ts';
import { webhookColumns } from './columns.ts';

interface ActiveQuery {
  accountId: string;
  event: WebhookEvent;
  socialAccountIds: readonly string[] | undefined;
}

/** Subscribed to the event and, when the caller names the event's connections, reached by it. */
const receives = (row: Webhook, { accountId, event, socialAccountIds }: ActiveQuery) =>
  row.accountId === accountId &&
  row.events.includes(event) &&
  (socialAccountIds === undefined || reachesConnections(row, socialAccountIds));

export function createWebhookRepository(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): WebhookRepository {
  /** Every finished post asks: the lookups of the same moment share one query. */
  const activeFor = batchedOrDirect(options, {
    maxSize: BATCH_MAX,
    async run(queries: ActiveQuery[]): Promise<Webhook[][]> {
      const accounts = [...new Set(queries.map((query) => query.accountId))];
      const rows = await db
        .selectFrom('webhooks')
        .select(webhookColumns)
        .where('account_id', '=', sql<string>`any(${accounts}::uuid[])`)
        .where('active', '=', true)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return queries.map((query) =>
        rows
          .filter((row) => receives(row, query))
          .map((row) => ({
            ...row,
            events: [...row.events],
            socialAccountIds: row.socialAccountIds && [...row.socialAccountIds],
          })),
      );
    },
  });

  return {
    async insert(webhook: Webhook): Promise<void> {
      await db
        .insertInto('webhooks')
        .values({
          id: webhook.id,
          account_id: webhook.accountId,
          created_by: webhook.createdBy,
          url: webhook.url,
          events: webhook.events,
          social_account_ids: webhook.socialAccountIds,
          active: webhook.active,
          disabled_reason: webhook.disabledReason,
          failing_since: webhook.failingSince,
          secret: webhook.secretCiphertext,
          created_at: webhook.createdAt,
        })
        .execute();
    },

    async findById(id: string): Promise<Webhook | null> {
      return (
        (await db
          .selectFrom('webhooks')
          .select(webhookColumns)
          .where('id', '=', id)
          .executeTakeFirst()) ?? null
      );
    },

    async listByAccount(accountId: string): Promise<Webhook[]> {
      return db
        .selectFrom('webhooks')
        .select(webhookColumns)
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** Locks the account row first inside a unit of work (account-quota.ts). */
    countByAccount: (accountId: string): Promise<number> =>
      countOfAccount(db, 'webhooks', accountId),

    listActiveForEvent: (accountId, event, socialAccountIds) =>
      activeFor({ accountId, event, socialAccountIds }),

    async setActive(id: string, active: boolean): Promise<boolean> {
      const result = await db
        .updateTable('webhooks')
        .set({ active, disabled_reason: null, failing_since: null })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async disable(id: string, reason: string): Promise<boolean> {
      const result = await db
        .updateTable('webhooks')
        .set({ active: false, disabled_reason: reason })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** One statement: the streak starts at the first failure and survives the next ones. */
    async noteAttempt(id: string, delivered: boolean, at: Date): Promise<Date | null> {
      const row = await db
        .updateTable('webhooks')
        .set({
          failing_since: delivered ? null : sql<Date>`coalesce(failing_since, ${at}::timestamptz)`,
        })
        .where('id', '=', id)
        .returning('failing_since')
        .executeTakeFirst();
      return row?.failing_since ?? null;
    },

    /** Deletes the webhook with its deliveries and their attempts (ON DELETE CASCADE). */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
