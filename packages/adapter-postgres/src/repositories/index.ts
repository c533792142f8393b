import type { Repositories } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { createAccountRepository } from './accounts.ts';
import { createApiKeyRepository } from './api-keys.ts';
import { createDeliveryRepository } from './deliveries.ts';
import { createIdempotencyRepository } from './idempotency.ts';
import { createOAuthStateRepository } from './oauth-states.ts';
import { createPostRepository } from './posts.ts';
import { createSocialAccountRepository } from './social-accounts.ts';
import { createWebhookRepository } from './webhooks.ts';

/**
 * Every storage port bound to one Kysely instance (the pool, or a transaction). `batch`: the
 * hot publish-run statements are shared between concurrent callers (the pool only).
 */
export function createRepositories(
  db: Kysely<Database>,
  options: { batch: boolean } = { batch: false },
): Repositories {
  return {
    accounts: createAccountRepository(db),
    apiKeys: createApiKeyRepository(db),
    socialAccounts: createSocialAccountRepository(db),
    posts: createPostRepository(db, options),
    webhooks: createWebhookRepository(db),
    deliveries: createDeliveryRepository(db),
    idempotency: createIdempotencyRepository(db),
    oauthStates: createOAuthStateRepository(db),
  };
}
