/** Webhooks: when a receiver that never answers is given up on. */
import { DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS } from '@social-publisher/domain';
import type { Env } from '../env-readers.ts';

export interface WebhooksConfig {
  /** WEBHOOK_DISABLE_AFTER_DAYS: a webhook whose every attempt failed this long is turned off. */
  webhookDisableAfterDays: number;
}

export function readWebhooks(e: Env): WebhooksConfig {
  return {
    webhookDisableAfterDays: e.int(
      'WEBHOOK_DISABLE_AFTER_DAYS',
      DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS,
      1,
      365,
    ),
  };
}
