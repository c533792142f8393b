import type {
  Clock,
  IdGenerator,
  Logger,
  PlatformRegistry,
  PublishQueue,
  Repositories,
  TokenCipher,
  UnitOfWork,
  WebhookSender,
} from './ports/index.ts';

/** Tunables of the core. Defaults in DEFAULT_SETTINGS; apps override from config. */
export interface CoreSettings {
  /** How long a claimed target is held before another worker may resume it. */
  targetLeaseMs: number;
  maxApiKeysPerAccount: number;
  /** First retry delay of a publish job with transient failures; doubles each attempt, with jitter. */
  publishRetryBaseMs: number;
  publishRetryMaxMs: number;
  /** Delay before attempt 2, 3, ... of a webhook delivery; its length + 1 is the attempt count. */
  deliveryRetryScheduleMs: number[];
  /** How many due posts / expired leases / due deliveries one reconcile pass looks at. */
  reconcileBatchSize: number;
  /** WEBHOOK_ALLOW_HTTP: accept http:// webhook URLs (development and tests only). */
  webhookAllowHttp?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: accept private/internal webhook hosts (development and tests only). */
  webhookAllowPrivateNetworks?: boolean;
}

export const DEFAULT_SETTINGS: CoreSettings = {
  targetLeaseMs: 60_000,
  maxApiKeysPerAccount: 10,
  publishRetryBaseMs: 2_000,
  publishRetryMaxMs: 5 * 60_000,
  // now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over about a day
  deliveryRetryScheduleMs: [
    5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
  ],
  reconcileBatchSize: 500,
  webhookAllowHttp: false,
  webhookAllowPrivateNetworks: false,
};

/** Everything a use case may touch. Built once by each app's composition root. */
export interface CoreDeps {
  uow: UnitOfWork;
  /** Non-transactional repositories, for reads and single-statement writes. */
  repos: Repositories;
  queue: PublishQueue;
  platforms: PlatformRegistry;
  webhookSender: WebhookSender;
  clock: Clock;
  ids: IdGenerator;
  cipher: TokenCipher;
  logger: Logger;
  settings: CoreSettings;
}
