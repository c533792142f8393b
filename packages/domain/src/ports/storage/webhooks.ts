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
  listActiveForEvent(accountId: string, event: WebhookEvent): Promise<Webhook[]>;
  setActive(id: string, active: boolean): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}
