/**
 * THE composition root, shared by the API (app-http) and the worker: reads the validated
 * config and wires every adapter into the domain's CoreDeps. Nothing else in the apps creates
 * adapters (the API's rate-limit Redis connection included).
 *
 * - storage: PostgreSQL (DATABASE_URL) or embedded PGlite under DATA_DIR; migrations run first,
 *   and a failed migration stops the start-up with one clear message;
 * - queue: BullMQ on Redis (REDIS_URL) or the in-process queue (one object is both producer and
 *   consumer in the embedded mode);
 * - platforms (media fetched through net-guard), webhook sender, AES-256-GCM token cipher,
 *   UUIDv7 ids, system clock, settings from config.
 */

import { createRedisPacer, type QueueDashboard } from '@social-publisher/adapter-bullmq';
import {
  createMediaProbe,
  createPlatformRegistry,
  PLATFORM_DESCRIPTORS,
  platformRateLimits,
} from '@social-publisher/adapter-platforms';
import { createWebhookSender } from '@social-publisher/adapter-webhooks';
import {
  type Config,
  loadConfig,
  resolveEncryptionKeys,
  unsafeSwitches,
} from '@social-publisher/config';
import {
  type Clock,
  type ConnectionPacer,
  type CoreDeps,
  type CoreSettings,
  createAesGcmCipher,
  createMemoryPacer,
  createUuidV7Generator,
  DEFAULT_SETTINGS,
  type Logger,
  type Pacing,
  type QueueConsumer,
  type QueueKind,
} from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import type { Cluster, Redis } from 'ioredis';
import type pino from 'pino';
import { type Closers, createClosers } from './closers.ts';
import { createMediaHosting } from './media-store.ts';
import { createProcessMetrics, type ProcessMetrics } from './metrics.ts';
import { chooseQueue } from './queue-choice.ts';
import { connectRateLimitRedis, redisConnectionOf } from './rate-limit-redis.ts';
import type { RuntimeRole } from './role.ts';
import { defaultPoolSize, openStorage } from './storage.ts';

/** The configuration with every platform's declared settings read too. */
export function loadRuntimeConfig(
  source: Record<string, string | undefined> = process.env,
  options: { requireEncryptionKey?: boolean } = {},
): Config {
  return loadConfig(source, { ...options, platforms: PLATFORM_DESCRIPTORS });
}

export interface RuntimeOptions {
  /**
   * `api`: producer only. `worker`: producer + consumer (the reconciler enqueues too).
   * `embedded`: API and worker in one process; with the in-process queue the producer and
   * the consumer are the same object. Default `embedded`.
   */
  role: RuntimeRole;
}

export interface Runtime {
  deps: CoreDeps;
  /** For GET /health; never throw. */
  checks: { database(): Promise<boolean>; queue(): Promise<boolean> };
  /** The queue adapter's own kind (`queue.kind`). */
  queueKind: QueueKind;
  databaseKind: 'postgres' | 'pglite';
  /** The consumer side of the queue: only for the `worker` and `embedded` roles. */
  consumer: QueueConsumer | null;
  /** The API's rate-limit connection: roles that serve HTTP, with Redis configured. */
  rateLimitRedis: Redis | Cluster | null;
  /** This process's Prometheus registry (also `deps.metrics`). */
  metrics: ProcessMetrics;
  /** The queue's own dashboard for /admin/queues (BullMQ's); null with the in-process queue. */
  queueDashboard: QueueDashboard | null;
  /** Closes the consumer, the producer, the HTTP clients and the database, in that order. Idempotent. */
  close(): Promise<void>;
}

const systemClock: Clock = { now: () => new Date() };

function settingsFrom(config: Config): CoreSettings {
  return {
    ...DEFAULT_SETTINGS,
    publicBaseUrl: config.connect.publicBaseUrl,
    connectReturnOrigins: config.connect.returnOrigins,
    tokenRefreshMarginMs: config.connect.tokenRefreshMarginMs,
    targetLeaseMs: config.worker.targetLeaseMs,
    maxWebhooksPerAccount: config.quotas.webhooksPerAccount,
    maxSocialAccountsPerAccount: config.quotas.socialAccountsPerAccount,
    maxWorkspacesPerUser: config.quotas.workspacesPerUser,
    webhookAllowHttp: config.webhookAllowHttp,
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    webhookDisableAfterDays: config.webhookDisableAfterDays,
    metricsRefreshScheduleMs: config.postMetrics.refreshScheduleMs,
    commentsRefreshScheduleMs: config.postComments.refreshScheduleMs,
    replyInFlightMs: config.postComments.replyInFlightMs,
    metricsMinRefreshMs: config.postMetrics.minRefreshMs,
    metricsRetentionMs: config.postMetrics.retentionMs,
    postsRetentionMs:
      config.postsRetentionDays === null ? null : config.postsRetentionDays * 86_400_000,
    metricsPassSize: config.postMetrics.passSize,
    metricsReadConcurrency: config.postMetrics.readConcurrency,
  };
}

/**
 * The adapters warn about their own unsafe switches when they are built; the runtime already
 * says it once per switch, so their construction-time warnings are dropped (later ones pass).
 */
function muteWarningsUntilBuilt(logger: Logger): { logger: Logger; built(): void } {
  let building = true;
  return {
    logger: {
      debug: (obj, msg) => logger.debug(obj, msg),
      info: (obj, msg) => logger.info(obj, msg),
      warn: (obj, msg) => {
        if (!building) logger.warn(obj, msg);
      },
      error: (obj, msg) => logger.error(obj, msg),
    },
    built: () => {
      building = false;
    },
  };
}

/** Says once, loudly, which development-only switches weaken a safety check. */
function warnUnsafeSwitches(config: Config, logger: pino.Logger): void {
  for (const name of unsafeSwitches(config)) {
    logger.warn(
      { unsafeSwitch: name },
      `UNSAFE: ${name} is on. This weakens a security check; local development and tests ONLY, never in production.`,
    );
  }
}

/**
 * What calls out of the process: the webhook sender, and the SSRF-guarded dispatcher through
 * which user-supplied media URLs (and Mastodon instances) are fetched. A refused address is
 * logged with its range; what the API client reads names neither. Their own warnings about the
 * unsafe switches are muted while they are built (warnUnsafeSwitches said it once).
 */
function createOutbound(config: Config, rootLogger: pino.Logger, closers: Closers) {
  const quiet = muteWarningsUntilBuilt(rootLogger.child({ component: 'webhooks' }));
  const webhookSender = createWebhookSender({
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    allowHttp: config.webhookAllowHttp,
    logger: quiet.logger,
  });
  quiet.built();
  closers.add('webhook sender', () => webhookSender.close());
  const quietMedia = muteWarningsUntilBuilt(rootLogger.child({ component: 'media' }));
  const mediaDispatcher = createGuardedDispatcher({
    allowPrivateNetworks: config.mediaAllowPrivateNetworks,
    label: 'media',
    logger: quietMedia.logger,
  });
  quietMedia.built();
  closers.add('media dispatcher', () => mediaDispatcher.close());
  return { webhookSender, mediaDispatcher };
}

/**
 * The Redis-backed pieces an API or worker shares with the others: the rate-limit client (API
 * processes) and the pacer. Without Redis this process is the only one publishing (embedded
 * mode), so its memory is the whole truth.
 */
async function connectShared(config: Config, role: RuntimeRole, closers: Closers) {
  let rateLimitRedis: Redis | Cluster | null = null;
  if (role !== 'worker' && config.redis) {
    const client = await connectRateLimitRedis(redisConnectionOf(config.redis));
    rateLimitRedis = client;
    closers.add('rate-limit redis', async () => client.disconnect());
  }
  let pacer: ConnectionPacer;
  if (config.redis) {
    const client = await connectRateLimitRedis(redisConnectionOf(config.redis));
    pacer = createRedisPacer(client, `${config.queuePrefix}:pace:`, async () =>
      client.disconnect(),
    );
  } else {
    pacer = createMemoryPacer();
  }
  closers.add('pacer', () => pacer.close());
  return { rateLimitRedis, pacer };
}

/** The shared pacer with each platform's publishing budget and, apart, its read budget. */
function pacingOf(config: Config, pacer: ConnectionPacer): Pacing {
  const { settings } = config.platforms;
  return {
    pacer,
    limitOf: platformRateLimits(settings, PLATFORM_DESCRIPTORS),
    readLimitOf: platformRateLimits(settings, PLATFORM_DESCRIPTORS, 'readRateLimit'),
  };
}

export async function createRuntime(
  config: Config,
  rootLogger: pino.Logger,
  options: RuntimeOptions = { role: 'embedded' },
): Promise<Runtime> {
  const { role } = options;
  const logger: Logger = rootLogger;
  warnUnsafeSwitches(config, rootLogger);
  // Config errors first, before anything is opened.
  const keys = resolveEncryptionKeys(config);
  const cipher = createAesGcmCipher(keys.current, { previous: keys.previous });
  const database = await openStorage(
    config,
    rootLogger.child({ component: 'database' }),
    config.databasePoolSize ?? defaultPoolSize(config, role),
    { longRunning: true },
  );
  // From here on, a failure closes what was opened.
  const closers = createClosers(logger);
  closers.add('database', () => database.close());
  try {
    const { webhookSender, mediaDispatcher } = createOutbound(config, rootLogger, closers);
    const media = createMediaHosting(config);
    closers.add('media store', () => media.store.close());
    const platforms = createPlatformRegistry(
      {
        ...config.platforms,
        mediaDispatcher,
        // User-given API servers (a Mastodon instance) follow the media switch too.
        mediaAllowPrivateNetworks: config.mediaAllowPrivateNetworks,
      },
      PLATFORM_DESCRIPTORS,
    );
    const queueLogger = rootLogger.child({ component: 'queue' });
    const { queue, consumer, dashboard } = chooseQueue(
      config,
      role !== 'api',
      queueLogger,
      closers,
    );
    const metrics = createProcessMetrics(() => queue);
    const { rateLimitRedis, pacer } = await connectShared(config, role, closers);
    const deps: CoreDeps = {
      uow: database.uow,
      repos: database.repos,
      queue,
      platforms,
      webhookSender,
      clock: systemClock,
      ids: createUuidV7Generator(),
      cipher,
      logger,
      settings: settingsFrom(config),
      metrics,
      mediaProbe: createMediaProbe(mediaDispatcher),
      media,
      pacing: pacingOf(config, pacer),
    };
    const prefix = config.redis ? config.queuePrefix : undefined;
    logger.info({ role, database: database.kind, queue: queue.kind, prefix }, 'runtime ready');
    let closing: Promise<void> | undefined;
    return {
      deps,
      checks: {
        database: () => database.health.ping().catch(() => false),
        queue: () => queue.ping().catch(() => false),
      },
      queueKind: queue.kind,
      databaseKind: database.kind,
      consumer,
      rateLimitRedis,
      metrics,
      queueDashboard: dashboard,
      close: () => {
        closing ??= closers.closeAll().then(() => logger.info({ role }, 'runtime closed'));
        return closing;
      },
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
