/**
 * Webhook deliveries as every event creates them: one pending row per subscribed webhook, due
 * now, then handed to the queue. A row is committed before it is enqueued, so a queue that
 * refuses it loses nothing: the reconciler enqueues every pending, due delivery it finds.
 */
import type { CoreDeps } from '../deps.ts';
import { buildEventPayload, type EventPayloadInput } from '../event-payload.ts';
import type { Webhook, WebhookDelivery } from '../model.ts';
import type { JobMeta } from '../ports/index.ts';

/** What one event delivers: the same payload to every webhook subscribed to it. */
export type DeliveryEvent = Omit<EventPayloadInput, 'timestamp' | 'eventId'>;

/**
 * A pending delivery of `event` to each of `webhooks`, due at `now`. The event gets its id here,
 * once: every webhook's delivery carries the same `event_id` (each delivery keeps its own id,
 * sent as `webhook-id`).
 */
export function pendingDeliveries(
  deps: Pick<CoreDeps, 'ids'>,
  webhooks: readonly Pick<Webhook, 'id'>[],
  event: DeliveryEvent,
  now: Date,
): WebhookDelivery[] {
  if (webhooks.length === 0) return [];
  const payload = buildEventPayload({ ...event, timestamp: now, eventId: deps.ids.newId() });
  return webhooks.map((webhook) => ({
    id: deps.ids.newId(),
    webhookId: webhook.id,
    accountId: event.accountId,
    postId: event.postId,
    event: event.event,
    payload,
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: now,
    deliveredAt: null,
    createdAt: now,
  }));
}

/** Enqueues stored deliveries; one the queue refuses is logged and left to the reconciler. */
export async function enqueueDeliveries(
  deps: Pick<CoreDeps, 'queue' | 'logger'>,
  deliveryIds: readonly string[],
  meta?: JobMeta,
): Promise<void> {
  for (const deliveryId of deliveryIds) {
    try {
      await deps.queue.enqueueDelivery(deliveryId, null, ...(meta ? [meta] : []));
    } catch (error) {
      deps.logger.warn({ deliveryId, err: String(error) }, 'enqueue of delivery failed');
    }
  }
}
