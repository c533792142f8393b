/**
 * Every storage contract suite at once, for an adapter that implements all storage ports:
 *
 *   import { describeStorageContracts } from '@social-publisher/domain/contracts/storage-all';
 *   describeStorageContracts('pglite', setup);
 */
import { describeAccountRepositoryContract } from './storage-accounts.ts';
import { describeApiKeyRepositoryContract } from './storage-api-keys.ts';
import { describeApprovalStorageContract } from './storage-approval.ts';
import { describeCommentsRepositoryContract } from './storage-comments.ts';
import { describeDeliveryRepositoryContract } from './storage-deliveries.ts';
import type { StorageSetup } from './storage-fixtures.ts';
import { describeIdempotencyRepositoryContract } from './storage-idempotency.ts';
import { describeMediaRepositoryContract } from './storage-media.ts';
import { describeMetricsRepositoryContract } from './storage-metrics.ts';
import { describeOAuthStateRepositoryContract } from './storage-oauth-states.ts';
import { describePlatformAppRepositoryContract } from './storage-platform-apps.ts';
import { describePostRetentionContract } from './storage-post-retention.ts';
import { describePostRepositoryContract } from './storage-posts.ts';
import { describeSocialAccountRepositoryContract } from './storage-social-accounts.ts';
import { describeUnitOfWorkContract } from './storage-unit-of-work.ts';
import { describePostUnpublishingContract } from './storage-unpublish.ts';
import { describeWebhookRepositoryContract } from './storage-webhooks.ts';

export type { StorageSetup, StorageUnderTest } from './storage-fixtures.ts';

export function describeStorageContracts(name: string, setup: StorageSetup): void {
  describeAccountRepositoryContract(name, setup);
  describeApiKeyRepositoryContract(name, setup);
  describeSocialAccountRepositoryContract(name, setup);
  describePostRepositoryContract(name, setup);
  describePostRetentionContract(name, setup);
  describeApprovalStorageContract(name, setup);
  describePostUnpublishingContract(name, setup);
  describeWebhookRepositoryContract(name, setup);
  describeDeliveryRepositoryContract(name, setup);
  describeIdempotencyRepositoryContract(name, setup);
  describeOAuthStateRepositoryContract(name, setup);
  describeMediaRepositoryContract(name, setup);
  describeMetricsRepositoryContract(name, setup);
  describeCommentsRepositoryContract(name, setup);
  describePlatformAppRepositoryContract(name, setup);
  describeUnitOfWorkContract(name, setup);
}
