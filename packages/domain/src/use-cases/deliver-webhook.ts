import { signPayload, standardWebhookSignature } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { DeliveryStatus, Webhook, WebhookDelivery } from '../model.ts';
import { withJitter } from '../policies/backoff.ts';
import { EARLY_RUN_TOLERANCE_MS } from '../policies/job-retry.ts';
import type { JobContext, JobResult, WebhookSendResult } from '../ports/index.ts';
import { openWebhookSecret, SecretUnreadableError } from '../secret-cipher.ts';
import { DONE, retryAfter } from './job-results.ts';
import { GONE_REASON, noteDelivered, noteFailed } from './webhook-health.ts';

export const WEBHOOK_USER_AGENT = 'social-publisher-webhooks/1';
/** A receiver's Retry-After is honoured, but never parks a delivery for more than a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** The headers of one attempt: docs/api.md#webhook-signatures, our signature plus the Standard Webhooks trio. */
export function deliveryHeaders(
  secret: string,
  delivery: Pick<WebhookDelivery, 'id' | 'event' | 'payload'>,
  now: Date,
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Social-Publisher-Event': delivery.event,
    'X-Social-Publisher-Signature': signPayload(secret, delivery.payload),
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(secret, delivery.id, timestamp, delivery.payload),
  };
}

async function record(
  deps: CoreDeps,
  delivery: WebhookDelivery,
  result: Pick<WebhookSendResult, 'statusCode' | 'error' | 'durationMs'>,
  startedAt: Date,
  update: { status: DeliveryStatus; nextAttemptAt: Date | null; deliveredAt: Date | null },
): Promise<void> {
  await deps.repos.deliveries.recordAttempt(
    {
      id: deps.ids.newId(),
      deliveryId: delivery.id,
      attemptNo: delivery.attempts + 1,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      createdAt: startedAt,
    },
    update,
  );
}

async function send(
  deps: CoreDeps,
  webhook: Webhook,
  secret: string,
  delivery: WebhookDelivery,
  now: Date,
) {
  try {
    return await deps.webhookSender.send({
      url: webhook.url,
      body: delivery.payload,
      headers: deliveryHeaders(secret, delivery, now),
    });
  } catch (error) {
    // The port promises a result; a throw is a bug or an outage in the adapter: try again later.
    const message = errorMessage(error);
    return { statusCode: null, error: message, durationMs: 0, retryAfterMs: null, retryable: true };
  }
}

/** Delay before the next attempt, or null when the schedule is used up. */
function nextDelay(deps: CoreDeps, attemptsMade: number, result: WebhookSendResult): number | null {
  const schedule = deps.settings.deliveryRetryScheduleMs;
  const planned = schedule[attemptsMade - 1];
  if (!result.retryable || planned === undefined) return null;
  const asked = Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return Math.max(withJitter(planned), asked);
}

/** One attempt of one webhook delivery (job id = delivery id). */
export async function deliverWebhook(
  deps: CoreDeps,
  deliveryId: string,
  _job: JobContext,
): Promise<JobResult> {
  // Deleting a webhook deletes its deliveries; one seen in between has nobody to go to.
  const found = await deps.repos.deliveries.findWithWebhook(deliveryId);
  if (found?.delivery.status !== 'pending') return DONE;
  const { delivery, webhook } = found;
  const startedAt = deps.clock.now();
  if (!webhook.active) {
    // Closed without sending, so the reconciler stops offering it.
    const result = { statusCode: null, error: 'webhook disabled', durationMs: 0 };
    await record(deps, delivery, result, startedAt, FAILED);
    return DONE;
  }
  const due = delivery.nextAttemptAt?.getTime() ?? startedAt.getTime();
  if (due > startedAt.getTime() + EARLY_RUN_TOLERANCE_MS) {
    return retryAfter(due - startedAt.getTime(), 'next attempt not due yet');
  }
  const secret = await openSecretOrClose(deps, webhook, delivery, startedAt);
  if (secret === null) return DONE;
  const result = await send(deps, webhook, secret, delivery, startedAt);
  return settleAttempt(deps, webhook, delivery, result, startedAt);
}

/** A delivery that will not be attempted again. */
const FAILED = { status: 'failed' as const, nextAttemptAt: null, deliveredAt: null };

/**
 * The webhook's signing secret, or null when it cannot be read: no attempt could ever sign
 * the delivery, and trying again would only repeat this, so it is closed with the reason.
 */
async function openSecretOrClose(
  deps: CoreDeps,
  webhook: Webhook,
  delivery: WebhookDelivery,
  startedAt: Date,
): Promise<string | null> {
  try {
    return openWebhookSecret(deps.cipher, webhook);
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    const result = { statusCode: null, error: error.message, durationMs: 0 };
    await record(deps, delivery, result, startedAt, FAILED);
    deps.metrics?.webhookAttempt('failed', delivery.attempts + 1);
    deps.logger.error(
      { deliveryId: delivery.id, webhookId: webhook.id, err: error.message },
      'webhook secret unreadable',
    );
    return null;
  }
}

/** Records one attempt's result: delivered, closed for good (410, attempts spent) or retried. */
async function settleAttempt(
  deps: CoreDeps,
  webhook: Webhook,
  delivery: WebhookDelivery,
  result: WebhookSendResult,
  startedAt: Date,
): Promise<JobResult> {
  const now = deps.clock.now();
  const attemptsMade = delivery.attempts + 1;
  const deliveryId = delivery.id;
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
    await record(deps, delivery, result, startedAt, {
      status: 'delivered',
      nextAttemptAt: null,
      deliveredAt: now,
    });
    await noteDelivered(deps, webhook, now);
    deps.metrics?.webhookAttempt('delivered', attemptsMade);
    deps.logger.debug(
      { deliveryId, postId: delivery.postId, status: result.statusCode, attempt: attemptsMade },
      'webhook delivered',
    );
    return DONE;
  }
  if (result.statusCode === 410) {
    // 410 Gone: the receiver asks us to stop for good.
    await deps.repos.webhooks.disable(webhook.id, GONE_REASON);
    await record(deps, delivery, result, startedAt, FAILED);
    deps.metrics?.webhookAttempt('failed', attemptsMade);
    deps.logger.info({ webhookId: webhook.id }, 'webhook disabled: receiver answered 410 Gone');
    return DONE;
  }
  const lastError = result.error ?? `HTTP ${result.statusCode}`;
  // Turned off now: this delivery ends here rather than waiting for a retry that is closed unsent.
  const disabled = await noteFailed(deps, webhook, lastError, now);
  const delay = disabled ? null : nextDelay(deps, attemptsMade, result);
  if (delay === null) {
    await record(deps, delivery, result, startedAt, FAILED);
    deps.metrics?.webhookAttempt('failed', attemptsMade);
    deps.logger.warn(
      { deliveryId, attempts: attemptsMade, error: result.error },
      'webhook delivery failed',
    );
    return DONE;
  }
  await record(deps, delivery, result, startedAt, {
    status: 'pending',
    nextAttemptAt: new Date(now.getTime() + delay),
    deliveredAt: null,
  });
  deps.metrics?.webhookAttempt('retrying', attemptsMade);
  return retryAfter(
    delay,
    `delivery attempt ${attemptsMade} failed: ${result.error ?? result.statusCode}`,
  );
}
