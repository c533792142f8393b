import type { AccountRepository } from './accounts.ts';
import type { ApiKeyRepository } from './api-keys.ts';
import type { CommentsRepository } from './comments.ts';
import type { DeliveryRepository } from './deliveries.ts';
import type { IdempotencyRepository } from './idempotency.ts';
import type { MediaRepository } from './media.ts';
import type { MetricsRepository } from './metrics.ts';
import type { OAuthStateRepository } from './oauth-states.ts';
import type { PlatformAppRepository } from './platform-apps.ts';
import type { PostRepository } from './posts.ts';
import type { PostSeriesRepository } from './series.ts';
import type { SlotRepository } from './slots.ts';
import type { SocialAccountRepository } from './social-accounts.ts';
import type { WebhookRepository } from './webhooks.ts';

export interface Repositories {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  socialAccounts: SocialAccountRepository;
  posts: PostRepository;
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  idempotency: IdempotencyRepository;
  oauthStates: OAuthStateRepository;
  platformApps: PlatformAppRepository;
  series: PostSeriesRepository;
  slots: SlotRepository;
  media: MediaRepository;
  metrics: MetricsRepository;
  comments: CommentsRepository;
}

/** Runs work inside one transaction; the repositories passed in are bound to it. */
export interface UnitOfWork {
  run<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
}

/** Liveness of a dependency, for GET /health. */
export interface HealthCheck {
  ping(): Promise<boolean>;
}
