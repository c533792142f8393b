import {
  type CreatedWebhook,
  DELIVERY_STATUSES,
  type DeliveryWithAttempts,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookDelivery,
} from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export const WebhookEventSchema = Type.Enum([...WEBHOOK_EVENTS]);

const WebhookFields = {
  id: Uuid(),
  url: Type.String(),
  events: Type.Array(WebhookEventSchema),
  social_account_ids: Nullable(
    Type.Array(Uuid(), {
      description: 'Only events about these connections are sent; null: every event',
    }),
  ),
  active: Type.Boolean(),
  disabled_reason: Nullable(
    Type.String({
      description:
        'Why the service turned the webhook off (every delivery failed for WEBHOOK_DISABLE_AFTER_DAYS, or 410 Gone); null otherwise',
    }),
  ),
  created_at: Timestamp(),
};

export const WebhookSchema = Type.Object(WebhookFields);

export const CreatedWebhookSchema = Type.Object({
  ...WebhookFields,
  secret: Type.String({
    description: 'Signs every delivery (HMAC-SHA256). Shown only in this response.',
  }),
});

export const WebhookStateSchema = Type.Object({ id: Uuid(), active: Type.Boolean() });

const DeliveryFields = {
  id: Uuid('Also sent as the webhook-id header'),
  webhook_id: Uuid(),
  post_id: Nullable(Uuid('null exactly for the social_account.* events')),
  event: WebhookEventSchema,
  status: Type.Enum([...DELIVERY_STATUSES]),
  attempts: Type.Integer({ minimum: 0 }),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(Timestamp()),
  delivered_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  payload: Type.String({ description: 'The exact JSON bytes that are signed and sent' }),
};

export const DeliverySchema = Type.Object(DeliveryFields);

export const DeliveryWithAttemptsSchema = Type.Object({
  ...DeliveryFields,
  attempt_log: Type.Array(
    Type.Object({
      attempt_no: Type.Integer({ minimum: 1 }),
      status_code: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      duration_ms: Type.Integer({ minimum: 0 }),
      created_at: Timestamp(),
    }),
  ),
});

export function presentWebhook(webhook: Webhook): Static<typeof WebhookSchema> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    social_account_ids: webhook.socialAccountIds,
    active: webhook.active,
    disabled_reason: webhook.disabledReason,
    created_at: webhook.createdAt.toISOString(),
  };
}

export const presentCreatedWebhook = (
  webhook: CreatedWebhook,
): Static<typeof CreatedWebhookSchema> => ({
  ...presentWebhook(webhook),
  secret: webhook.secret,
});

export function presentDelivery(delivery: WebhookDelivery): Static<typeof DeliverySchema> {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    post_id: delivery.postId,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: iso(delivery.nextAttemptAt),
    delivered_at: iso(delivery.deliveredAt),
    created_at: delivery.createdAt.toISOString(),
    payload: delivery.payload,
  };
}

export function presentDeliveryWithAttempts(
  delivery: DeliveryWithAttempts,
): Static<typeof DeliveryWithAttemptsSchema> {
  return {
    ...presentDelivery(delivery),
    attempt_log: delivery.attemptLog.map((attempt) => ({
      attempt_no: attempt.attemptNo,
      status_code: attempt.statusCode,
      error: attempt.error,
      duration_ms: Math.max(0, Math.round(attempt.durationMs)),
      created_at: attempt.createdAt.toISOString(),
    })),
  };
}
