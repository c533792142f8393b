/**
 * Producer side of the queue port on BullMQ: the `publish` and `unpublish` queues (job id =
 * post id) and the `webhook-delivery` queue (job id = delivery id).
 *
 * Fail fast: the producer owns one ioredis connection with the offline queue disabled, a
 * short command timeout and a quick reconnect. A call made while Redis is unreachable waits at
 * most `connectWaitMs` for the connection to come back, then rejects without sending anything
 * (so nothing is added late); a command that gets no answer rejects after `commandTimeoutMs`.
 * The callers (the use cases) treat a rejected enqueue as "the reconciler will add it later".
 */
import {
  consoleLogger,
  DependencyUnavailableError,
  errorMessage,
  type JobMeta,
  type Logger,
  type PublishQueue,
  translateOutage,
} from '@social-publisher/domain';
import { inEnqueueSpan } from '@social-publisher/telemetry';
import { Queue } from 'bullmq';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { bullBoardDashboard, type QueueDashboard } from './dashboard.ts';
import {
  DELIVERY_QUEUE,
  type DeliveryJobData,
  isCluster,
  keyPrefix,
  PUBLISH_QUEUE,
  type PublishJobData,
  type RedisConnectionInput,
  throttledErrorLog,
  UNPUBLISH_QUEUE,
  type UnpublishJobData,
  withTimeout,
} from './shared.ts';

export interface BullmqQueueOptions {
  connection: RedisConnectionInput;
  /** Key prefix (default `sp`). Wrap it in braces, e.g. `{sp}`, on Redis Cluster. */
  prefix?: string;
  /** How long a call waits for a (re)connecting Redis before it rejects (default 1000 ms). */
  connectWaitMs?: number;
  /** ioredis `commandTimeout` of the producer connection (default 1000 ms). */
  commandTimeoutMs?: number;
  logger?: Logger;
}

export interface BullmqQueue extends PublishQueue {
  readonly prefix: string;
  /** The publish and webhook-delivery queues' dashboard (bull-board), for /admin/queues. */
  readonly dashboard: QueueDashboard;
}

/** States in which a job has not started yet (and may be removed by cancelPublish). */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children']);

/** Finished jobs are removed at once, so that the same id can be added again later. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export function createProducerConnection(
  input: RedisConnectionInput,
  { commandTimeoutMs, connectTimeoutMs }: { commandTimeoutMs: number; connectTimeoutMs: number },
): Redis | Cluster {
  const failFast: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    // Reconnect quickly so that the producer is usable soon after Redis is back.
    retryStrategy: (times) => Math.min(200 * times, 2_000),
  };
  if (typeof input === 'string') return new Redis(input, failFast);
  if (isCluster(input)) {
    const { redisOptions, ...clusterOptions } = input.options ?? {};
    return new Cluster(input.cluster, {
      ...clusterOptions,
      enableOfflineQueue: false,
      clusterRetryStrategy: (times) => Math.min(200 * times, 2_000),
      redisOptions: { ...redisOptions, ...failFast, connectionName: 'social-publisher-producer' },
    });
  }
  const { url, ...rest } = input;
  const options = {
    ...rest,
    ...failFast,
    retryStrategy: rest.retryStrategy ?? failFast.retryStrategy,
  };
  return url ? new Redis(url, options) : new Redis(options);
}

/** Redis not ready in time, or gone for good: an outage of the queue, said as one. */
const unreachable = (message: string) =>
  new DependencyUnavailableError('queue', new Error(message));

const requestIdOf = (meta: JobMeta | undefined) =>
  typeof meta?.requestId === 'string' ? { requestId: meta.requestId } : {};

function delayUntil(runAt: Date | null): number {
  if (!runAt) return 0;
  const time = runAt.getTime();
  if (Number.isNaN(time)) throw new Error('bullmq queue: invalid runAt');
  return Math.max(0, time - Date.now());
}

export function createBullmqQueue(options: BullmqQueueOptions): BullmqQueue {
  const prefix = keyPrefix(options);
  const logger = options.logger ?? consoleLogger;
  const connectWaitMs = options.connectWaitMs ?? 1_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 1_000;

  const client = createProducerConnection(options.connection, {
    commandTimeoutMs,
    connectTimeoutMs: Math.max(connectWaitMs, 1_000),
  });
  const logConnectionError = throttledErrorLog(logger, 'queue producer: Redis error');
  client.on('error', (error) => logConnectionError(error, { prefix }));

  const publishQueue = new Queue<PublishJobData>(PUBLISH_QUEUE, { connection: client, prefix });
  const deliveryQueue = new Queue<DeliveryJobData>(DELIVERY_QUEUE, { connection: client, prefix });
  const unpublishQueue = new Queue<UnpublishJobData>(UNPUBLISH_QUEUE, {
    connection: client,
    prefix,
  });
  const queues = [publishQueue, deliveryQueue, unpublishQueue];
  for (const queue of queues) {
    queue.on('error', (error) => logConnectionError(error, { prefix, queue: queue.name }));
  }

  let closed = false;
  let closePromise: Promise<void> | undefined;

  /**
   * The connection's next 'ready', shared by every caller waiting for it: one listener however
   * many creates arrive while Redis is away (one each would pile up listeners on the client).
   */
  let nextReady: Promise<void> | null = null;
  const readyEvent = (): Promise<void> => {
    nextReady ??= new Promise<void>((resolve) => {
      client.once('ready', () => {
        nextReady = null;
        resolve();
      });
    });
    return nextReady;
  };

  /** Resolves once the connection is ready, or rejects after connectWaitMs (nothing sent). */
  function whenReady(): Promise<void> {
    if (closed) return Promise.reject(new Error('bullmq queue is closed'));
    if (client.status === 'ready') return Promise.resolve();
    if (client.status === 'end') {
      return Promise.reject(unreachable('bullmq queue: Redis connection ended'));
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          unreachable(`bullmq queue: Redis unreachable (not ready after ${connectWaitMs} ms)`),
        );
      }, connectWaitMs);
      void readyEvent().then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Runs one producer operation with the fail-fast rules above. Every producer call passes
   * here: Redis unreachable leaves as the domain's DependencyUnavailableError('queue').
   */
  async function run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      await whenReady();
      // Belt and braces: each command already times out after commandTimeoutMs; this bounds
      // the whole operation (a few commands at most) in case something else stalls.
      return await withTimeout(
        operation(),
        commandTimeoutMs * 3,
        `bullmq queue: ${what} timed out after ${commandTimeoutMs * 3} ms`,
      );
    } catch (error) {
      throw translateOutage('queue', error);
    }
  }

  /** Adds a delivery job; a due one waiting out an older retry backoff is brought forward. */
  async function addDelivery(
    deliveryId: string,
    delay: number,
    extra: Pick<DeliveryJobData, 'requestId' | 'traceparent'>,
  ): Promise<void> {
    await deliveryQueue.add(
      DELIVERY_QUEUE,
      { deliveryId, attempt: 1, ...extra },
      { ...JOB_OPTIONS, jobId: deliveryId, delay },
    );
    // The add is a no-op when the delivery's job already waits out a retry backoff; a
    // redeliver (or a reconcile of a due delivery) must not wait for that old time.
    // Only a due time of now is brought forward: that is what redeliver and the reconciler
    // ask for, and a delayed job is then always later.
    if (delay > 0) return;
    const job = await deliveryQueue.getJob(deliveryId);
    if (job && (await job.getState()) === 'delayed') await job.promote();
  }

  return {
    kind: 'redis',
    dashboard: bullBoardDashboard(queues),
    prefix,

    async enqueuePublish(postId, runAt, meta) {
      const delay = delayUntil(runAt);
      await inEnqueueSpan('bullmq', PUBLISH_QUEUE, postId, (trace) =>
        run('enqueuePublish', () =>
          publishQueue.add(
            PUBLISH_QUEUE,
            { postId, attempt: 1, ...requestIdOf(meta), ...trace },
            { ...JOB_OPTIONS, jobId: postId, delay },
          ),
        ),
      );
    },

    async enqueueUnpublish(postId, runAt, meta) {
      const delay = delayUntil(runAt);
      await inEnqueueSpan('bullmq', UNPUBLISH_QUEUE, postId, (trace) =>
        run('enqueueUnpublish', () =>
          unpublishQueue.add(
            UNPUBLISH_QUEUE,
            { postId, attempt: 1, ...requestIdOf(meta), ...trace },
            { ...JOB_OPTIONS, jobId: postId, delay },
          ),
        ),
      );
    },

    async cancelPublish(postId) {
      return run('cancelPublish', async () => {
        const state = await publishQueue.getJobState(postId);
        if (!NOT_STARTED.has(state)) return false; // active, finished or unknown
        // removeJob refuses a locked (active) job: a job that started in between stays.
        return (await publishQueue.remove(postId)) === 1;
      });
    },

    async enqueueDelivery(deliveryId, runAt, meta) {
      const delay = delayUntil(runAt);
      await inEnqueueSpan('bullmq', DELIVERY_QUEUE, deliveryId, (trace) =>
        run('enqueueDelivery', () =>
          addDelivery(deliveryId, delay, { ...requestIdOf(meta), ...trace }),
        ),
      );
    },

    async prometheusMetrics() {
      const texts = await run('prometheusMetrics', () =>
        Promise.all(queues.map((queue) => queue.exportPrometheusMetrics())),
      );
      return mergePrometheusTexts(texts);
    },

    async ping() {
      try {
        await whenReady();
        return (await withTimeout(client.ping(), commandTimeoutMs, 'ping timed out')) === 'PONG';
      } catch {
        return false;
      }
    },

    close() {
      closePromise ??= (async () => {
        closed = true;
        if (client instanceof Cluster) {
          // A cluster delays the queues' first commands until it knows its slots; ended before
          // that, it rejects them where nobody listens. Let them through first (bounded).
          await withTimeout(
            Promise.allSettled(queues.map((queue) => queue.waitUntilReady())),
            connectWaitMs,
            'cluster not ready',
          ).catch(() => {});
        }
        await Promise.allSettled(queues.map((queue) => queue.close()));
        if (client.status === 'ready') {
          try {
            await withTimeout(client.quit(), commandTimeoutMs, 'quit timed out');
            return;
          } catch (error) {
            logger.debug(
              { err: errorMessage(error) },
              'queue producer: quit failed; disconnecting',
            );
          }
        }
        client.disconnect();
      })();
      return closePromise;
    },
  };
}

/**
 * One exposition from several queues' exports: each repeats every metric's HELP and TYPE lines
 * and lists its own samples, while a scraper wants each metric once with all its samples
 * together (and strict parsers reject the space BullMQ puts between labels).
 */
export function mergePrometheusTexts(texts: readonly string[]): string {
  const families = new Map<string, { comments: string[]; samples: string[] }>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { comments: [], samples: [] };
      families.set(name, found);
    }
    return found;
  };
  for (const line of texts.flatMap((text) => text.split('\n'))) {
    const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
    if (comment?.[2]) {
      const { comments } = family(comment[2]);
      if (!comments.includes(line)) comments.push(line);
    } else if (line.trim() !== '' && !line.startsWith('#')) {
      // BullMQ separates labels with ", "; strict parsers want a bare comma.
      const sampleLine = line.replace(/(?<!\\)", (?=[a-zA-Z_])/g, '",');
      family(/^[^{\s]+/.exec(line)?.[0] ?? line).samples.push(sampleLine);
    }
  }
  const lines = [...families.values()].flatMap(({ comments, samples }) => [
    ...comments,
    ...samples,
  ]);
  return `${lines.join('\n')}\n`;
}
