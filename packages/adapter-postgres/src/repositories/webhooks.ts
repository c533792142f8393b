import type { Webhook, WebhookEvent, WebhookRepository } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { webhookColumns } from './columns.ts';

export function createWebhookRepository(db: Kysely<Database>): WebhookRepository {
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
          active: webhook.active,
          secret: webhook.secret,
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

    async listActiveForEvent(accountId: string, event: WebhookEvent): Promise<Webhook[]> {
      return db
        .selectFrom('webhooks')
        .select(webhookColumns)
        .where('account_id', '=', accountId)
        .where('active', '=', true)
        .where(sql<boolean>`${event} = any(events)`)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    async setActive(id: string, active: boolean): Promise<boolean> {
      const result = await db
        .updateTable('webhooks')
        .set({ active })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Deletes the webhook with its deliveries and their attempts (ON DELETE CASCADE). */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
