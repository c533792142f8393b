import { REPLY_IN_FLIGHT_MS } from './comments-model.ts';
import {
  PUBLISH_RETRY_BASE_MS,
  PUBLISH_RETRY_MAX_MS,
  WEBHOOK_DELIVERY_SCHEDULE_MS,
} from './policies/backoff.ts';
import {
  COMMENTS_REFRESH_SCHEDULE_MS,
  METRICS_PASS_SIZE,
  METRICS_REFRESH_SCHEDULE_MS,
} from './policies/metrics-schedule.ts';
import type {
  Clock,
  ConnectionPacer,
  IdGenerator,
  Logger,
  MediaProbe,
  MediaStore,
  Metrics,
  PlatformRegistry,
  PublishQueue,
  RateLimit,
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
  /** WEBHOOKS_MAX_PER_ACCOUNT. */
  maxWebhooksPerAccount: number;
  /** SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: connections of an account, every connect path. */
  maxSocialAccountsPerAccount: number;
  /** WORKSPACES_MAX_PER_USER: team accounts one user may own. */
  maxWorkspacesPerUser: number;
  /** First retry delay of a publish job with transient failures; doubles each attempt, with jitter. */
  publishRetryBaseMs: number;
  publishRetryMaxMs: number;
  /**
   * How many times one publish job may wait out a platform's rate limit without spending an
   * attempt; past it, a rate limit counts as a transient failure (so nothing waits forever).
   */
  publishMaxWaits: number;
  /** The longest wait a platform may ask for; a longer one fails the target (retryable). */
  publishMaxWaitMs: number;
  /** Delay before attempt 2, 3, ... of a webhook delivery; its length + 1 is the attempt count. */
  deliveryRetryScheduleMs: number[];
  /** How many due posts / expired leases / due deliveries one reconcile pass looks at. */
  reconcileBatchSize: number;
  /** WEBHOOK_ALLOW_HTTP: accept http:// webhook URLs (development and tests only). */
  webhookAllowHttp?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: accept private/internal webhook hosts (development and tests only). */
  webhookAllowPrivateNetworks?: boolean;
  /**
   * WEBHOOK_DISABLE_AFTER_DAYS: a webhook whose every attempt failed for this long is turned
   * off (`disabled_reason` says why). Absent: DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS.
   */
  webhookDisableAfterDays?: number;
  /** PUBLIC_BASE_URL: how browsers reach the API (OAuth callbacks). */
  publicBaseUrl: string;
  /** CONNECT_RETURN_ORIGINS: the only origins a connect flow may send the browser back to. */
  connectReturnOrigins: string[];
  /** Tokens expiring within this are renewed by the worker's refresh pass. */
  tokenRefreshMarginMs: number;
  /** How long one worker holds a connection it is renewing. */
  tokenRefreshLeaseMs: number;
  /** METRICS_REFRESH_SCHEDULE: the offsets after publication at which numbers are read. */
  metricsRefreshScheduleMs: number[];
  /**
   * COMMENTS_REFRESH_SCHEDULE: the offsets after publication at which comments are read (the
   * pass size, concurrency, lease and debounce of the metrics reads apply to them too).
   */
  commentsRefreshScheduleMs: number[];
  /** METRICS_MIN_REFRESH_S in ms: a target read more recently is not read again when asked. */
  metricsMinRefreshMs: number;
  /** METRICS_RETENTION_DAYS in ms: snapshots older than this are deleted. */
  metricsRetentionMs: number;
  /** How many due reads one pass of the worker claims. */
  metricsPassSize: number;
  /** How many connections one pass reads at the same time. */
  metricsReadConcurrency: number;
  /** How long claimed reads are held before another worker may take them (a crash). */
  metricsReadLeaseMs: number;
  /**
   * POSTS_RETENTION_DAYS in ms: finished posts last changed longer ago than this are deleted
   * with their targets, deliveries and numbers. null: kept for ever (the default).
   */
  postsRetentionMs: number | null;
  /**
   * REPLY_IN_FLIGHT_MS: how long a reply's own request may still be running. A `sending` reply
   * older than this is looked for on the platform (by a retry with its key, or by the worker's
   * sweep); each platform call of a reply is given half of it, at most 60 s, so no request can
   * still be calling when its reply is looked for.
   */
  replyInFlightMs: number;
}

/** Days of nothing but failed attempts after which a webhook is turned off. */
export const DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS = 5;

export const DEFAULT_SETTINGS: CoreSettings = {
  targetLeaseMs: 60_000,
  maxApiKeysPerAccount: 10,
  maxWebhooksPerAccount: 20,
  maxSocialAccountsPerAccount: 500,
  maxWorkspacesPerUser: 50,
  publishRetryBaseMs: PUBLISH_RETRY_BASE_MS,
  publishRetryMaxMs: PUBLISH_RETRY_MAX_MS,
  publishMaxWaits: 200,
  // The longest publishing quota window among the platforms is a rolling 24 hours.
  publishMaxWaitMs: 25 * 3_600_000,
  deliveryRetryScheduleMs: [...WEBHOOK_DELIVERY_SCHEDULE_MS],
  reconcileBatchSize: 500,
  publicBaseUrl: 'http://127.0.0.1:3000',
  connectReturnOrigins: [],
  tokenRefreshMarginMs: 15 * 60_000,
  tokenRefreshLeaseMs: 2 * 60_000,
  webhookAllowHttp: false,
  webhookAllowPrivateNetworks: false,
  webhookDisableAfterDays: DEFAULT_WEBHOOK_DISABLE_AFTER_DAYS,
  metricsRefreshScheduleMs: [...METRICS_REFRESH_SCHEDULE_MS],
  commentsRefreshScheduleMs: [...COMMENTS_REFRESH_SCHEDULE_MS],
  metricsMinRefreshMs: 60_000,
  metricsRetentionMs: 400 * 86_400_000,
  metricsPassSize: METRICS_PASS_SIZE,
  metricsReadConcurrency: 4,
  metricsReadLeaseMs: 5 * 60_000,
  postsRetentionMs: null,
  replyInFlightMs: REPLY_IN_FLIGHT_MS,
};

/**
 * Pacing ahead of the platforms' limits: the shared pacer and each platform's limit (null: that
 * platform is not paced, only its own refusals are honoured).
 */
export interface Pacing {
  pacer: ConnectionPacer;
  limitOf(platform: string): RateLimit | null;
  /**
   * The budget of metric reads (`<PLATFORM>_READ_RATE_LIMIT`), counted apart from publishing's
   * so reads never spend it; absent or null: reads are not paced ahead.
   */
  readLimitOf?(platform: string): RateLimit | null;
}

/** Hosted media (POST /media): where the bytes go and how long they are kept. */
export interface MediaHosting {
  store: MediaStore;
  /** MEDIA_MAX_BYTES: the largest upload. */
  maxBytes: number;
  /** MEDIA_RETENTION_DAYS in ms: kept this long after the last post using it is finished. */
  retentionMs: number;
  /** MEDIA_QUOTA_BYTES: the bytes one account's media may hold together (absent: no quota). */
  quotaBytes?: number;
}

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
  /** Counters for operators; absent in most tests. */
  metrics?: Metrics;
  /** Absent: connections are not paced ahead (the platforms' refusals still are honoured). */
  pacing?: Pacing;
  /** Media checks of dry runs (POST /posts/validate); absent: not probed. */
  mediaProbe?: MediaProbe;
  /** Hosted media; absent: POST /media and the public URLs answer that it is not configured. */
  media?: MediaHosting;
}
