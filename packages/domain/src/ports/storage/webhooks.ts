import type { Webhook, WebhookEvent } from '../../model.ts';

export interface WebhookRepository {
  insert(webhook: Webhook): Promise<void>;
  findById(id: string): Promise<Webhook | null>;
  listByAccount(accountId: string): Promise<Webhook[]>;
  listActiveForEvent(accountId: string, event: WebhookEvent): Promise<Webhook[]>;
  setActive(id: string, active: boolean): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}
