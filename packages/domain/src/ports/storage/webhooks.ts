import type { Webhook, WebhookEvent } from '../../model.ts';

export interface WebhookRepository {
  insert(webhook: Webhook): Promise<void>;
  findById(id: string): Promise<Webhook | null>;
  listByAccount(accountId: string): Promise<Webhook[]>;
  /**
   * How many webhooks the account holds (WEBHOOKS_MAX_PER_ACCOUNT). Inside a unit of work it
   * first locks the account, so "count, then insert below the limit" cannot be raced.
   */
  countByAccount(accountId: string): Promise<number>;
  /**
   * The active webhooks of the account subscribed to `event`, oldest first. With
   * `socialAccountIds` (the connections the event is about), only those whose filter is null or
   * names one of them; without it the filters are not looked at (the caller applies
   * `reachesConnections` itself).
   */
  listActiveForEvent(
    accountId: string,
    event: WebhookEvent,
    socialAccountIds?: readonly string[],
  ): Promise<Webhook[]>;
  /** Turns the webhook on or off by hand: clears `disabledReason` and `failingSince`. */
  setActive(id: string, active: boolean): Promise<boolean>;
  /** Turns the webhook off for `reason` (auto-disable, 410 Gone). */
  disable(id: string, reason: string): Promise<boolean>;
  /**
   * Notes an attempt's result for auto-disable: a delivered one clears `failingSince`, a failed
   * one sets it to `at` unless it is set already. Returns `failingSince` as it now is (null
   * when the webhook is gone or the attempt was delivered).
   */
  noteAttempt(id: string, delivered: boolean, at: Date): Promise<Date | null>;
  delete(id: string): Promise<boolean>;
}
