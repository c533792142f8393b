import type {
  DeliveryAttempt,
  DeliveryStatus,
  DeliveryWithAttempts,
  Webhook,
  WebhookDelivery,
} from '../../model.ts';
import type { PostTransition } from './posts.ts';

export interface DeliveryRepository {
  insertMany(deliveries: WebhookDelivery[]): Promise<void>;
  /**
   * With `onlyIf`, the post's conditional status transition and the inserts are one atomic
   * statement: the deliveries are stored only when the transition applied. Returns whether it
   * applied (with no deliveries it is just the transition).
   */
  insertMany(deliveries: WebhookDelivery[], onlyIf: PostTransition): Promise<boolean>;
  findById(id: string): Promise<WebhookDelivery | null>;
  /** The delivery with its webhook (one query); null when either is gone. */
  findWithWebhook(id: string): Promise<{ delivery: WebhookDelivery; webhook: Webhook } | null>;
  /** Deliveries of one webhook, newest first, each with its attempts (oldest attempt first). */
  listByWebhook(webhookId: string, limit: number): Promise<DeliveryWithAttempts[]>;
  /** Appends an attempt and updates the delivery's status/counters in the same call. */
  recordAttempt(
    attempt: DeliveryAttempt,
    update: {
      status: DeliveryStatus;
      nextAttemptAt: Date | null;
      deliveredAt: Date | null;
    },
  ): Promise<void>;
  /**
   * Puts a delivery back to `pending` for another round of attempts (redeliver): `attempts`
   * restarts at 0 so the retry schedule applies again, `deliveredAt` is cleared; earlier
   * attempt rows and `lastStatusCode`/`lastError` are kept as history.
   */
  reset(id: string, nextAttemptAt: Date): Promise<void>;
  /** Pending deliveries whose next attempt is due (for the reconciler). */
  findDue(now: Date, limit: number): Promise<WebhookDelivery[]>;
}
