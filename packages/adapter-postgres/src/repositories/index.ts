import type { Repositories } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { StatementSharing } from '../batch.ts';
import type { Database } from '../schema.ts';
import { createAccountRepository } from './accounts.ts';
import { createApiKeyRepository } from './api-keys.ts';
import { createCommentsRepository } from './comments.ts';
import { createDeliveryRepository } from './deliveries.ts';
import { createIdempotencyRepository } from './idempotency.ts';
import { createMediaRepository } from './media.ts';
import { createMetricsRepository } from './metrics.ts';
import { createOAuthStateRepository } from './oauth-states.ts';
import { createPlatformAppRepository } from './platform-apps.ts';
import { createPostRepository } from './posts.ts';
import { createPostSeriesRepository } from './series.ts';
import { createSlotRepository } from './slots.ts';
import { createSocialAccountRepository } from './social-accounts.ts';
import { createWebhookRepository } from './webhooks.ts';

/**
 * Every storage port bound to one Kysely instance (the pool, or a transaction). `batch`: the
 * hot statements (API key and connection lookups, post inserts, the publish run's start and
 * completions) are shared between the calls of the same moment (the pool only).
 */
export function createRepositories(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): Repositories {
  return {
    accounts: createAccountRepository(db),
    apiKeys: createApiKeyRepository(db, options),
    socialAccounts: createSocialAccountRepository(db, options),
    posts: createPostRepository(db, options),
    webhooks: createWebhookRepository(db, options),
    deliveries: createDeliveryRepository(db, options),
    idempotency: createIdempotencyRepository(db),
    oauthStates: createOAuthStateRepository(db),
    platformApps: createPlatformAppRepository(db),
    series: createPostSeriesRepository(db),
    slots: createSlotRepository(db),
    media: createMediaRepository(db),
    metrics: createMetricsRepository(db),
    comments: createCommentsRepository(db),
  };
}
