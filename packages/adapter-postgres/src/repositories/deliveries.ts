import type {
  DeliveryAttempt,
  DeliveryRepository,
  DeliveryWithAttempts,
  PostTransition,
  Webhook,
  WebhookDelivery,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { attemptColumns, deliveryColumns, fieldOf, webhookColumns } from './columns.ts';
import { moveOne, movePostStatus } from './post-transition.ts';

const toRow = (delivery: WebhookDelivery) => ({
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
});

const DELIVERY_FIELDS = deliveryColumns.map(fieldOf);
const WEBHOOK_FIELDS = webhookColumns.map(fieldOf);
/** Webhook columns aliased `w_<field>`, for a delivery joined with its webhook. */
const joinedWebhookColumns = webhookColumns.map((column) =>
  column.replace(' as ', ' as w_'),
) as unknown as readonly ['webhooks.id as w_id'];

function pick(row: Record<string, unknown>, fields: readonly string[], prefix: string) {
  const picked: Record<string, unknown> = {};
  for (const field of fields) picked[field] = row[`${prefix}${field}`];
  return picked;
}

type AttemptUpdate = Parameters<DeliveryRepository['recordAttempt']>[1];

interface AttemptInput {
  attempt: DeliveryAttempt;
  update: AttemptUpdate;
}

export function createDeliveryRepository(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): DeliveryRepository {
  /** Every delivery job starts here: the loads of the same moment share one query. */
  const withWebhook = batchedOrDirect(options, {
    maxSize: BATCH_MAX,
    async run(
      ids: string[],
    ): Promise<Array<{ delivery: WebhookDelivery; webhook: Webhook } | null>> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
        .select(deliveryColumns)
        .select(joinedWebhookColumns)
        .where('webhook_deliveries.id', '=', sql<string>`any(${ids}::uuid[])`)
        .execute();
      const byId = new Map(
        rows.map((row) => [row.id, row as unknown as Record<string, unknown>] as const),
      );
      return ids.map((id) => {
        const fields = byId.get(id);
        if (fields === undefined) return null;
        return {
          delivery: pick(fields, DELIVERY_FIELDS, '') as unknown as WebhookDelivery,
          webhook: pick(fields, WEBHOOK_FIELDS, 'w_') as unknown as Webhook,
        };
      });
    },
  });

  /**
   * The attempts of one moment in one statement: each attempt row, and each delivery's
   * counters (deliveries locked in id order: overlapping statements wait, never deadlock).
   */
  const recordAttempts = batchedOrDirect(options, {
    keyOf: (input: AttemptInput) => input.attempt.deliveryId,
    maxSize: BATCH_MAX,
    isolateFailures: true,
    async run(inputs: AttemptInput[]): Promise<null[]> {
      const rows = JSON.stringify(
        inputs.map(({ attempt, update }) => ({
          id: attempt.id,
          delivery_id: attempt.deliveryId,
          attempt_no: attempt.attemptNo,
          status_code: attempt.statusCode,
          error: attempt.error,
          duration_ms: Math.max(0, Math.round(attempt.durationMs)),
          created_at: attempt.createdAt,
          status: update.status,
          next_attempt_at: update.nextAttemptAt,
          delivered_at: update.deliveredAt,
        })),
      );
      await sql`${preparedMark('delivery_attempt_record')}
        with attempt as (
          select * from json_to_recordset(${rows}::json) as a(
            id uuid, delivery_id uuid, attempt_no integer, status_code integer, error text,
            duration_ms integer, created_at timestamptz, status text,
            next_attempt_at timestamptz, delivered_at timestamptz)
        ),
        logged as (
          insert into webhook_delivery_attempts (id, delivery_id, attempt_no, status_code, error,
            duration_ms, created_at)
          select id, delivery_id, attempt_no, status_code, error, duration_ms, created_at
          from attempt
        )
        update webhook_deliveries d set
          status = a.status,
          attempts = d.attempts + 1,
          last_status_code = a.status_code,
          last_error = a.error,
          next_attempt_at = a.next_attempt_at,
          delivered_at = a.delivered_at
        from attempt a
        where d.id = a.delivery_id and d.id in (
          select l.id from webhook_deliveries l join attempt on attempt.delivery_id = l.id
          order by l.id for update of l)`.execute(db);
      return inputs.map(() => null);
    },
  });

  /** The conditional transition of a post, and the deliveries only if it applied. */
  async function insertIf(deliveries: WebhookDelivery[], onlyIf: PostTransition): Promise<boolean> {
    if (onlyIf.from.length === 0) return false;
    if (deliveries.length === 0) {
      return moveOne(db, onlyIf);
    }
    // The rows travel as one JSON parameter typed by the table's row type; the SELECT yields
    // them only when the post moved. RETURNING the post id (once) tells whether it did.
    const rows = JSON.stringify(deliveries.map(toRow));
    const result = await sql<{ id: string }>`${preparedMark('post_move_with_deliveries')}
        with moved as (${movePostStatus(onlyIf)}),
        inserted as (
          insert into webhook_deliveries (id, webhook_id, account_id, post_id, event, payload,
            status, attempts, last_status_code, last_error, next_attempt_at, delivered_at,
            created_at)
          select d.id, d.webhook_id, d.account_id, d.post_id, d.event, d.payload, d.status,
            d.attempts, d.last_status_code, d.last_error, d.next_attempt_at, d.delivered_at,
            d.created_at
          from json_populate_recordset(null::webhook_deliveries, ${rows}::json) as d
          where exists (select 1 from moved)
        )
        select id from moved`.execute(db);
    return result.rows.length > 0;
  }

  return {
    /**
     * With `onlyIf`: one statement, `WITH moved AS (UPDATE posts ... RETURNING) INSERT ...
     * SELECT ... WHERE EXISTS (SELECT 1 FROM moved)`, so the transition and the deliveries are
     * stored together or not at all, without a transaction around them. Typed `never` because
     * the port's overloads return void without `onlyIf` and a boolean with it.
     */
    async insertMany(deliveries: WebhookDelivery[], onlyIf?: PostTransition): Promise<never> {
      if (onlyIf === undefined) {
        if (deliveries.length > 0) {
          await db.insertInto('webhook_deliveries').values(deliveries.map(toRow)).execute();
        }
        return undefined as never;
      }
      return (await insertIf(deliveries, onlyIf)) as never;
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

    /** One query: the delivery joined with its webhook (shared with the loads of the moment). */
    findWithWebhook: (id) => withWebhook(id),

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

    /**
     * One statement (a data-modifying CTE): the attempt row and the delivery's counters, shared
     * with the attempts of the same moment.
     */
    async recordAttempt(attempt, update): Promise<void> {
      await recordAttempts({ attempt, update });
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
