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

import {
  createBullmqConsumer,
  createBullmqQueue,
  createRedisPacer,
  type RedisConnectionInput,
} from '@social-publisher/adapter-bullmq';
import { createInProcessQueue } from '@social-publisher/adapter-inprocess-queue';
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
  errorMessage,
  type Logger,
  type PublishQueue,
  type QueueConsumer,
  type QueueKind,
} from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type pino from 'pino';
import { createMediaHosting } from './media-store.ts';
import { createProcessMetrics, type ProcessMetrics } from './metrics.ts';
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
  /** BullMQ's publish and delivery queues for the dashboard; empty with the in-process queue. */
  dashboardQueues: readonly Queue[];
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

/**
 * A producer for an API process without Redis: nothing to hand jobs to in this process, so the
 * database alone carries them and a worker's reconciler (sharing the database) enqueues them.
 */
function databaseOnlyQueue(): PublishQueue {
  return {
    kind: 'inprocess',
    enqueuePublish: async () => {},
    cancelPublish: async () => false,
    enqueueDelivery: async () => {},
    ping: async () => true,
    close: async () => {},
  };
}

export async function createRuntime(
  config: Config,
  rootLogger: pino.Logger,
  options: RuntimeOptions = { role: 'embedded' },
): Promise<Runtime> {
  const { role } = options;
  const logger: Logger = rootLogger;
  const consumes = role !== 'api';

  for (const name of unsafeSwitches(config)) {
    rootLogger.warn(
      { unsafeSwitch: name },
      `UNSAFE: ${name} is on. This weakens a security check; local development and tests ONLY, never in production.`,
    );
  }
  // Config errors first, before anything is opened.
  const keys = resolveEncryptionKeys(config);
  const cipher = createAesGcmCipher(keys.current, { previous: keys.previous });

  const database = await openStorage(
    config,
    rootLogger.child({ component: 'database' }),
    config.databasePoolSize ?? defaultPoolSize(config, role),
  );

  // From here on, a failure closes what was opened.
  const closers: Array<{ name: string; close: () => Promise<void> }> = [
    { name: 'database', close: () => database.close() },
  ];
  const closeAll = async (): Promise<void> => {
    for (const { name, close } of [...closers].reverse()) {
      try {
        await close();
      } catch (error) {
        logger.warn({ component: name, err: errorMessage(error) }, 'error while closing');
      }
    }
  };

  try {
    const quiet = muteWarningsUntilBuilt(rootLogger.child({ component: 'webhooks' }));
    const webhookSender = createWebhookSender({
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      allowHttp: config.webhookAllowHttp,
      logger: quiet.logger,
    });
    quiet.built();
    closers.push({ name: 'webhook sender', close: () => webhookSender.close() });

    // User-supplied media URLs (and Mastodon instances) are fetched through the SSRF guard
    // (the unsafe switch is warned about above). A refused address is logged here with its
    // range; what the API client reads names neither.
    const quietMedia = muteWarningsUntilBuilt(rootLogger.child({ component: 'media' }));
    const mediaDispatcher = createGuardedDispatcher({
      allowPrivateNetworks: config.mediaAllowPrivateNetworks,
      label: 'media',
      logger: quietMedia.logger,
    });
    quietMedia.built();
    closers.push({ name: 'media dispatcher', close: () => mediaDispatcher.close() });

    const media = createMediaHosting(config);
    closers.push({ name: 'media store', close: () => media.store.close() });

    const platforms = createPlatformRegistry(
      {
        ...config.platforms,
        mediaDispatcher,
        // User-given API servers (a Mastodon instance) follow the media switch too.
        mediaAllowPrivateNetworks: config.mediaAllowPrivateNetworks,
      },
      PLATFORM_DESCRIPTORS,
    );

    let queue: PublishQueue;
    /** BullMQ's queues, for the /admin/queues dashboard (none with the in-process queue). */
    let dashboardQueues: readonly Queue[] = [];
    const metrics = createProcessMetrics(() => queue);
    let consumer: QueueConsumer | null = null;
    const queueLogger = rootLogger.child({ component: 'queue' });
    if (config.redis) {
      const connection: RedisConnectionInput = redisConnectionOf(config.redis);
      const bullmq = createBullmqQueue({
        connection,
        prefix: config.queuePrefix,
        logger: queueLogger,
      });
      queue = bullmq;
      dashboardQueues = bullmq.queues;
      closers.push({ name: 'queue producer', close: () => queue.close() });
      if (consumes) {
        const bullmqConsumer = createBullmqConsumer({
          connection,
          prefix: config.queuePrefix,
          concurrency: config.worker.concurrency,
          maxPublishAttempts: config.worker.maxPublishAttempts,
          ...config.queueTuning,
          logger: queueLogger,
        });
        consumer = bullmqConsumer;
        closers.push({ name: 'queue consumer', close: () => bullmqConsumer.close() });
      }
    } else {
      if (consumes) {
        const inProcess = createInProcessQueue({
          concurrency: config.worker.concurrency,
          maxPublishAttempts: config.worker.maxPublishAttempts,
          logger: queueLogger,
        });
        queue = inProcess;
        consumer = inProcess;
        closers.push({ name: 'in-process queue', close: () => inProcess.close() });
      } else {
        queue = databaseOnlyQueue();
        logger.info(
          {},
          'no REDIS_URL: this API process only stores jobs in the database; a worker sharing the database picks them up',
        );
      }
    }

    let rateLimitRedis: Redis | Cluster | null = null;
    if (role !== 'worker' && config.redis) {
      const client = await connectRateLimitRedis(redisConnectionOf(config.redis));
      rateLimitRedis = client;
      closers.push({ name: 'rate-limit redis', close: async () => client.disconnect() });
    }

    // Pacing is shared by every process through Redis; without it, this process is the only
    // one publishing (embedded mode), so its memory is the whole truth.
    let pacer: ConnectionPacer;
    if (config.redis) {
      const client = await connectRateLimitRedis(redisConnectionOf(config.redis));
      pacer = createRedisPacer(client, `${config.queuePrefix}:pace:`, async () =>
        client.disconnect(),
      );
    } else {
      pacer = createMemoryPacer();
    }
    closers.push({ name: 'pacer', close: () => pacer.close() });

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
      pacing: {
        pacer,
        limitOf: platformRateLimits(config.platforms.settings, PLATFORM_DESCRIPTORS),
      },
    };

    let closing: Promise<void> | undefined;
    logger.info(
      {
        role,
        database: database.kind,
        queue: queue.kind,
        prefix: config.redis ? config.queuePrefix : undefined,
      },
      'runtime ready',
    );
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
      dashboardQueues,
      close: () => {
        closing ??= closeAll().then(() => logger.info({ role }, 'runtime closed'));
        return closing;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
