/**
 * THE composition root, shared by the API (app-http) and the worker: reads the validated
 * config and wires every adapter into the domain's CoreDeps. Nothing else in the apps creates
 * adapters.
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
  type RedisConnectionInput,
} from '@social-publisher/adapter-bullmq';
import { createInProcessQueue } from '@social-publisher/adapter-inprocess-queue';
import { createPlatformRegistry } from '@social-publisher/adapter-platforms';
import { type DatabaseHandle, openDatabase } from '@social-publisher/adapter-postgres';
import { createWebhookSender } from '@social-publisher/adapter-webhooks';
import {
  type Config,
  ConfigError,
  resolveEncryptionKey,
  unsafeSwitches,
} from '@social-publisher/config';
import {
  type Clock,
  type CoreDeps,
  type CoreSettings,
  createAesGcmCipher,
  createUuidV7Generator,
  DEFAULT_SETTINGS,
  type Logger,
  type PublishQueue,
  type QueueConsumer,
} from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import type pino from 'pino';

export type RuntimeRole = 'api' | 'worker' | 'embedded';

export interface RuntimeOptions {
  /**
   * `api`: producer only. `worker`: producer + consumer (the reconciler enqueues too).
   * `embedded`: API and worker in one process; with the in-process queue the producer and
   * the consumer are the same object. Default `embedded`.
   */
  role: RuntimeRole;
  /** BullMQ consumer timings; default from QUEUE_STALLED_INTERVAL_MS / QUEUE_LOCK_DURATION_MS. */
  queueTuning?: QueueTuning;
}

export interface QueueTuning {
  /** How often a worker looks for jobs whose worker died (BullMQ default 30 s). */
  stalledIntervalMs?: number;
  /** How long a job's lock lives without renewal (BullMQ default 30 s). */
  lockDurationMs?: number;
}

export interface Runtime {
  deps: CoreDeps;
  /** For GET /health; never throw. */
  checks: { database(): Promise<boolean>; queue(): Promise<boolean> };
  queueKind: 'redis' | 'inprocess';
  databaseKind: 'postgres' | 'pglite';
  /** The consumer side of the queue: only for the `worker` and `embedded` roles. */
  consumer: QueueConsumer | null;
  /** Closes the consumer, the producer, the HTTP clients and the database, in that order. Idempotent. */
  close(): Promise<void>;
}

/** Why the process cannot start (database unreachable, migration failed): one clear line. */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

const systemClock: Clock = { now: () => new Date() };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * BullMQ knobs the shared config does not carry (tests shorten them to recover the jobs of a
 * killed worker quickly): QUEUE_STALLED_INTERVAL_MS and QUEUE_LOCK_DURATION_MS.
 */
export function readQueueTuning(
  env: Record<string, string | undefined> = process.env,
): QueueTuning {
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < 100 || value > 3_600_000) {
      throw new ConfigError(name, 'must be a whole number of milliseconds between 100 and 3600000');
    }
    return value;
  };
  const tuning: QueueTuning = {};
  const stalledIntervalMs = read('QUEUE_STALLED_INTERVAL_MS');
  const lockDurationMs = read('QUEUE_LOCK_DURATION_MS');
  if (stalledIntervalMs !== undefined) tuning.stalledIntervalMs = stalledIntervalMs;
  if (lockDurationMs !== undefined) tuning.lockDurationMs = lockDurationMs;
  return tuning;
}

/**
 * Connections a process needs so that no query waits for one: a publish job has up to ~4
 * queries in flight (claims, connection lookups, lease renewals, the result); the API one
 * per concurrent request stage. Measured: at 64 concurrent POST /posts a pool of 10 made each
 * request wait 55-75 ms for a connection, four times.
 */
function defaultPoolSize(config: Config, role: RuntimeRole): number {
  // Capped: PostgreSQL's default max_connections is 100 for every process together.
  const worker = role === 'api' ? 0 : Math.min(4 * config.worker.concurrency, 40);
  const api = role === 'worker' ? 0 : 20;
  return Math.max(10, worker + api);
}

function settingsFrom(config: Config): CoreSettings {
  return {
    ...DEFAULT_SETTINGS,
    targetLeaseMs: config.worker.targetLeaseMs,
    webhookAllowHttp: config.webhookAllowHttp,
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
  };
}

/**
 * The adapters warn about their own unsafe switches when they are built; the runtime already
 * says it once per switch, so their construction-time warnings are dropped (later ones pass).
 */
function quietWhileBuilding(logger: Logger): { logger: Logger; built(): void } {
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

/** Opens PostgreSQL or PGlite and brings the schema up to date (closed again on failure). */
async function openStorage(
  config: Config,
  logger: Logger,
  poolSize: number,
): Promise<DatabaseHandle> {
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  try {
    return await openDatabase({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      dataDir: config.dataDir,
      poolSize,
      logger,
      migrate: true,
    });
  } catch (error) {
    throw new StartupError(`cannot start: ${where}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * A producer for an API process without Redis: nothing to hand jobs to in this process, so the
 * database alone carries them and a worker's reconciler (sharing the database) enqueues them.
 */
function databaseOnlyQueue(): PublishQueue {
  return {
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
  const cipher = createAesGcmCipher(resolveEncryptionKey(config));
  const queueTuning = options.queueTuning ?? readQueueTuning();

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
    const quiet = quietWhileBuilding(rootLogger.child({ component: 'webhooks' }));
    const webhookSender = createWebhookSender({
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      allowHttp: config.webhookAllowHttp,
      logger: quiet.logger,
    });
    quiet.built();
    closers.push({ name: 'webhook sender', close: () => webhookSender.close() });

    // User-supplied media URLs are fetched through the SSRF guard (warning logged above).
    const mediaDispatcher = createGuardedDispatcher({
      allowPrivateNetworks: config.mediaAllowPrivateNetworks,
      label: 'media',
    });
    closers.push({ name: 'media dispatcher', close: () => mediaDispatcher.close() });

    const { platforms: p } = config;
    const platforms = createPlatformRegistry({
      tiktok: {
        baseUrl: p.tiktok.baseUrl,
        ...(p.tiktok.clientKey ? { clientKey: p.tiktok.clientKey } : {}),
        ...(p.tiktok.clientSecret ? { clientSecret: p.tiktok.clientSecret } : {}),
        ...(p.tiktok.photoProxyUrl ? { photoProxyUrl: p.tiktok.photoProxyUrl } : {}),
      },
      instagram: { baseUrl: p.instagram.baseUrl, graphVersion: p.instagram.graphVersion },
      youtube: {
        baseUrl: p.youtube.baseUrl,
        oauthBaseUrl: p.youtube.oauthBaseUrl,
        ...(p.youtube.clientId ? { clientId: p.youtube.clientId } : {}),
        ...(p.youtube.clientSecret ? { clientSecret: p.youtube.clientSecret } : {}),
      },
      pollIntervalMs: p.pollIntervalMs,
      pollTimeoutMs: p.pollTimeoutMs,
      mediaDispatcher,
    });

    let queue: PublishQueue;
    let consumer: QueueConsumer | null = null;
    let queueKind: Runtime['queueKind'];
    const queueLogger = rootLogger.child({ component: 'queue' });
    if (config.redisUrl) {
      queueKind = 'redis';
      const connection: RedisConnectionInput = config.redisUrl;
      queue = createBullmqQueue({ connection, prefix: config.queuePrefix, logger: queueLogger });
      closers.push({ name: 'queue producer', close: () => queue.close() });
      if (consumes) {
        const bullmqConsumer = createBullmqConsumer({
          connection,
          prefix: config.queuePrefix,
          concurrency: config.worker.concurrency,
          maxPublishAttempts: config.worker.maxPublishAttempts,
          ...queueTuning,
          logger: queueLogger,
        });
        consumer = bullmqConsumer;
        closers.push({ name: 'queue consumer', close: () => bullmqConsumer.close() });
      }
    } else {
      queueKind = 'inprocess';
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
    };

    let closing: Promise<void> | undefined;
    logger.info(
      {
        role,
        database: database.kind,
        queue: queueKind,
        prefix: config.redisUrl ? config.queuePrefix : undefined,
      },
      'runtime ready',
    );
    return {
      deps,
      checks: {
        database: () => database.health.ping().catch(() => false),
        queue: () => queue.ping().catch(() => false),
      },
      queueKind,
      databaseKind: database.kind,
      consumer,
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
