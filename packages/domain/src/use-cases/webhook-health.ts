/**
 * Auto-disable (docs/api.md#webhook-delivery): a webhook whose every attempt failed for
 * WEBHOOK_DISABLE_AFTER_DAYS is turned off, `disabled_reason` saying so. The streak starts at
 * the first failed attempt after a delivered one and ends at the next delivered one; it is
 * checked at each failed attempt, so a webhook that receives nothing is never disabled.
 */
import { type CoreDeps, DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS } from '../deps.ts';
import type { Webhook } from '../model.ts';

const DAY_MS = 86_400_000;

/** A delivered attempt ends the failing streak (one write, only when there is one). */
export async function noteDelivered(deps: CoreDeps, webhook: Webhook, at: Date): Promise<void> {
  if (webhook.failingSince !== null) await deps.repos.webhooks.noteAttempt(webhook.id, true, at);
}

/**
 * A failed attempt: extends the streak, and turns the webhook off once the streak is as old as
 * the setting. Returns whether this call disabled it.
 */
export async function noteFailed(
  deps: CoreDeps,
  webhook: Webhook,
  lastError: string,
  at: Date,
): Promise<boolean> {
  const since = await deps.repos.webhooks.noteAttempt(webhook.id, false, at);
  const days = deps.settings.webhookDisableAfterDays ?? DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS;
  if (since === null || at.getTime() - since.getTime() < days * DAY_MS) return false;
  const reason = `every delivery failed for ${days} days (since ${since.toISOString()}); last error: ${lastError}`;
  const disabled = await deps.repos.webhooks.disable(webhook.id, reason);
  if (disabled) deps.logger.warn({ webhookId: webhook.id, reason }, 'webhook disabled');
  return disabled;
}

/** 410 Gone: the receiver asks us to stop for good. */
export const GONE_REASON = 'the receiver answered 410 Gone';
