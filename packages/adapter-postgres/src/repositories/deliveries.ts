import type {
  DeliveryAttempt,
  DeliveryRepository,
  DeliveryWithAttempts,
  WebhookDelivery,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { attemptColumns, deliveryColumns } from './columns.ts';

export function createDeliveryRepository(db: Kysely<Database>): DeliveryRepository {
  return {
    async insertMany(deliveries: WebhookDelivery[]): Promise<void> {
      if (deliveries.length === 0) return;
      await db
        .insertInto('webhook_deliveries')
        .values(
          deliveries.map((delivery) => ({
            id: delivery.id,
            webhook_id: delivery.webhookId,
            account_id: delivery.accountId,
            post_id: delivery.postId,
            event: delivery.event,
            payload: delivery.payload,
            status: delivery.status,
            attempts: delivery.attempts,
            last_status_code: delivery.lastStatusCode,
            last_error: delivery.lastError,
            next_attempt_at: delivery.nextAttemptAt,
            delivered_at: delivery.deliveredAt,
            created_at: delivery.createdAt,
          })),
        )
        .execute();
    },

    async findById(id: string): Promise<WebhookDelivery | null> {
      return (
        (await db
          .selectFrom('webhook_deliveries')
          .select(deliveryColumns)
          .where('id', '=', id)
          .executeTakeFirst()) ?? null
      );
    },

    /** Two queries: the deliveries, then the attempts of all of them. */
    async listByWebhook(webhookId: string, limit: number): Promise<DeliveryWithAttempts[]> {
      const deliveries = (await db
        .selectFrom('webhook_deliveries')
        .select(deliveryColumns)
        .where('webhook_id', '=', webhookId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()) as DeliveryWithAttempts[];
      if (deliveries.length === 0) return deliveries;
      const byDelivery = new Map<string, DeliveryAttempt[]>();
      for (const delivery of deliveries) {
        delivery.attemptLog = [];
        byDelivery.set(delivery.id, delivery.attemptLog);
      }
      const ids = deliveries.map((delivery) => delivery.id);
      const attempts = await db
        .selectFrom('webhook_delivery_attempts')
        .select(attemptColumns)
        .where('delivery_id', '=', sql<string>`any(${ids}::uuid[])`)
        .orderBy('delivery_id')
        .orderBy('created_at')
        .orderBy('attempt_no')
        .execute();
      for (const attempt of attempts) byDelivery.get(attempt.deliveryId)?.push(attempt);
      return deliveries;
    },

    /** One statement (a data-modifying CTE): the attempt row and the delivery's counters. */
    async recordAttempt(attempt, update): Promise<void> {
      await db
        .with('logged_attempt', (qb) =>
          qb.insertInto('webhook_delivery_attempts').values({
            id: attempt.id,
            delivery_id: attempt.deliveryId,
            attempt_no: attempt.attemptNo,
            status_code: attempt.statusCode,
            error: attempt.error,
            duration_ms: Math.max(0, Math.round(attempt.durationMs)),
            created_at: attempt.createdAt,
          }),
        )
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status: update.status,
          attempts: eb('attempts', '+', 1),
          last_status_code: attempt.statusCode,
          last_error: attempt.error,
          next_attempt_at: update.nextAttemptAt,
          delivered_at: update.deliveredAt,
        }))
        .where('id', '=', attempt.deliveryId)
        .execute();
    },

    async reset(id: string, nextAttemptAt: Date): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: nextAttemptAt, delivered_at: null })
        .where('id', '=', id)
        .execute();
    },

    /** A pending delivery without a next attempt time counts as due now. */
    async findDue(now: Date, limit: number): Promise<WebhookDelivery[]> {
      return db
        .selectFrom('webhook_deliveries')
        .select(deliveryColumns)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
        .orderBy(sql`next_attempt_at asc nulls first`)
        .orderBy('id')
        .limit(limit)
        .execute();
    },
  };
}
