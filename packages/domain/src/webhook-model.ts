/** Webhooks, their deliveries and the event catalogue (docs/api.md#webhooks); see model.ts. */

/**
 * The event catalogue (docs/api.md#webhook-events), in its documented order. Some are in the
 * catalogue before anything sends them (subscribable, their payload documented): a webhook may
 * subscribe to them now and receives them once their cause exists.
 */
export const WEBHOOK_EVENTS = [
  'post.created',
  'post.updated',
  'post.cancelled',
  'post.published',
  'post.partial',
  'post.failed',
  'post.target.published',
  'post.target.failed',
  'post.unpublished',
  'post.approval_requested',
  'post.approved',
  'post.rejected',
  'post.metrics_updated',
  'social_account.connected',
  'social_account.expired',
  'social_account.disconnected',
  'comment.received',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: string;
  accountId: string;
  createdBy: string;
  url: string;
  events: WebhookEvent[];
  /**
   * Only events about these connections reach the webhook (`social_account_ids`); null: every
   * event of the account it subscribed to.
   */
  socialAccountIds: string[] | null;
  active: boolean;
  /** Why the service turned the webhook off (auto-disable, 410 Gone); null when it did not. */
  disabledReason: string | null;
  /**
   * Since when every attempt failed: the first failed attempt after a delivered one (or after
   * creation); cleared by a delivered attempt and by re-enabling. Auto-disable counts from it.
   */
  failingSince: Date | null;
  /**
   * The signing secret (`whsec_` + random, shown once at creation) as stored: sealed with the
   * TokenCipher, bound to this webhook (`openWebhookSecret` reads it).
   */
  secretCiphertext: string;
  createdAt: Date;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  accountId: string;
  /** null exactly for events about a connection (`social_account.*`). */
  postId: string | null;
  event: WebhookEvent;
  /** The exact JSON bytes (as a UTF-8 string) that are signed and sent on every attempt. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  attemptNo: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
}

export interface DeliveryWithAttempts extends WebhookDelivery {
  attemptLog: DeliveryAttempt[];
}
