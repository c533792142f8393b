/**
 * Consumer side of the queue port on BullMQ: one Worker per queue (`publish`,
 * `webhook-delivery`, `unpublish`), each on its own connections with `maxRetriesPerRequest: null` (workers
 * wait for Redis forever rather than fail).
 *
 * Attempts are counted by the adapter in the job data (`attempt`), not by BullMQ's own retry
 * machinery, so that both kinds of retry keep the same job (same id, so the dedupe still holds):
 * - a `{ kind: 'retry', delayMs }` result bumps `attempt` and moves the job back to `delayed`
 *   (job.moveToDelayed + DelayedError);
 * - a retry with `spendsAttempt: false` (a platform's rate limit) bumps `waits` instead;
 * - a thrown exception does the same with exponential backoff and jitter;
 * - after `maxAttempts` the job is dropped (logged) and removed, so its id can be added again.
 * Every BullMQ job is added with `attempts: 1`; BullMQ itself never retries.
 *
 * A worker that dies mid-job leaves its job locked until `lockDurationMs` expires; the stalled
 * checker of any live worker (every `stalledIntervalMs`) then moves it back to `wait` and it
 * runs again with the same attempt number. The handlers must therefore be safe to re-run
 * (the domain claims targets with a conditional update and resumes from stored platform ids).
 */
import {
  type ConsumerTuning,
  consoleLogger,
  errorMessage,
  type JobContext,
  type JobHandlers,
  type Logger,
  type QueueConsumer,
  runJobAttempt,
} from '@social-publisher/domain';
import { inJobSpan } from '@social-publisher/telemetry';
import { DelayedError, type Job, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import {
  DELIVERY_QUEUE,
  type DeliveryJobData,
  isCluster,
  keyPrefix,
  PUBLISH_QUEUE,
  type PublishJobData,
  positiveInt,
  type RedisConnectionInput,
  throttledErrorLog,
  UNPUBLISH_QUEUE,
  withTimeout,
} from './shared.ts';
import { warnOnCoarseRedisTimers } from './timer-resolution.ts';

export interface BullmqConsumerOptions extends ConsumerTuning {
  connection: RedisConnectionInput;
  /** Key prefix, the same as the producer's (default `sp`). */
  prefix?: string;
  /** How often this worker looks for jobs whose worker died (BullMQ default 30 s). */
  stalledIntervalMs?: number;
  /** How long a job's lock lives without renewal (BullMQ default 30 s). */
  lockDurationMs?: number;
  /** How many times a job may be recovered from a dead worker before it fails (default 2). */
  maxStalledCount?: number;
  /** close(): how long in-flight handlers may run before their signal is aborted (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * close(): how much longer to wait after the abort before giving up (default 10 s). Jobs
   * still running then are left locked; once their lock expires another worker takes them.
   */
  shutdownTimeoutMs?: number;
  /** start(): how long to wait for Redis before resolving anyway (default 5 s). */
  startTimeoutMs?: number;
  logger?: Logger;
}

type Kind = 'publish' | 'deliver' | 'unpublish';
type JobData = PublishJobData | DeliveryJobData;

export function createBullmqConsumer(options: BullmqConsumerOptions): QueueConsumer {
  const prefix = keyPrefix(options);
  const logger = options.logger ?? consoleLogger;
  const concurrency = positiveInt('concurrency', options.concurrency, 5);
  const deliveryConcurrency = positiveInt(
    'deliveryConcurrency',
    options.deliveryConcurrency,
    concurrency,
  );
  const maxAttempts: Record<Kind, number> = {
    publish: positiveInt('maxPublishAttempts', options.maxPublishAttempts, 6),
    deliver: positiveInt('maxDeliveryAttempts', options.maxDeliveryAttempts, 20),
    unpublish: positiveInt('maxPublishAttempts', options.maxPublishAttempts, 6),
  };
  const retryBaseDelayMs = options.retryBaseDelayMs ?? 2_000;
  const retryMaxDelayMs = options.retryMaxDelayMs ?? 5 * 60_000;
  const shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const startTimeoutMs = options.startTimeoutMs ?? 5_000;

  const input = options.connection;
  /** Clusters this consumer made (BullMQ closes connections it made, not instances it is given). */
  const clusters: Cluster[] = [];
  /** A worker's connection: options BullMQ connects with, or a Cluster of its own. */
  const connectionFor = (name: string) => {
    if (typeof input === 'string') return { url: input, maxRetriesPerRequest: null };
    if (!isCluster(input)) return { ...input, maxRetriesPerRequest: null };
    const cluster = new Cluster(input.cluster, {
      ...input.options,
      redisOptions: {
        ...input.options?.redisOptions,
        maxRetriesPerRequest: null,
        connectionName: `social-publisher-${name}`,
      },
    });
    clusters.push(cluster);
    return cluster;
  };

  const workers: Worker<JobData>[] = [];
  /** Abort controllers of the jobs this process is running, by `${queue}/${jobId}`. */
  const running = new Map<string, AbortController>();
  let shuttingDown = false;
  let closePromise: Promise<void> | undefined;

  function processor(kind: Kind, handlers: JobHandlers) {
    const max = maxAttempts[kind];
    return async (job: Job<JobData>, token?: string): Promise<void> => {
      const data = job.data as Partial<PublishJobData & DeliveryJobData>;
      const id = kind === 'deliver' ? data.deliveryId : data.postId;
      const attempt =
        Number.isInteger(data.attempt) && (data.attempt ?? 0) >= 1 ? (data.attempt ?? 1) : 1;
      const requestId = typeof data.requestId === 'string' ? data.requestId : undefined;
      const log = {
        kind,
        id: id ?? job.id,
        attempt,
        ...(requestId ? { request_id: requestId } : {}),
      };
      if (typeof id !== 'string' || id.length === 0) {
        logger.error({ ...log, jobId: job.id }, 'malformed job data; dropped');
        return;
      }

      const key = `${job.queueName}/${job.id}`;
      const controller = new AbortController();
      running.set(key, controller);
      const waits = Number.isInteger(data.waits) && (data.waits ?? 0) >= 0 ? (data.waits ?? 0) : 0;
      const ctx: JobContext = {
        attempt,
        maxAttempts: max,
        waits,
        signal: controller.signal,
        ...(requestId ? { requestId } : {}),
      };

      const policy = { maxAttempts: max, retryBaseDelayMs, retryMaxDelayMs };
      // The attempt's span continues the enqueue's trace (the traceparent in the job's data).
      const traced = { id, attempt, traceparent: data.traceparent };
      const step = await inJobSpan('bullmq', job.queueName, traced, () =>
        runJobAttempt(
          async () => {
            try {
              return await handlers[kind](id, ctx);
            } finally {
              running.delete(key);
            }
          },
          attempt,
          policy,
          logger,
          log,
        ),
      );
      // attempts: 1, removeOnFail: a throw fails the job for good and removes it.
      if (step.kind === 'dropped' && step.error !== undefined) throw step.error;
      if (step.kind !== 'again') return;
      if (!step.spendsAttempt) {
        // A wait (rate limit): same attempt, so the job's failure budget is left whole.
        await job.updateData({ ...job.data, waits: waits + 1 });
        await job.moveToDelayed(Date.now() + step.delayMs, token);
        throw new DelayedError();
      }
      // Count the attempt first: a crash between the two calls re-runs the job with the
      // higher number (never fewer attempts than asked for).
      await job.updateData({ ...job.data, attempt: attempt + 1 });
      await job.moveToDelayed(Date.now() + step.delayMs, token);
      throw new DelayedError();
    };
  }

  function abortAll(reason: string): void {
    for (const controller of running.values()) controller.abort(new Error(reason));
  }

  return {
    async start(handlers) {
      if (shuttingDown) throw new Error('bullmq consumer is closed');
      if (workers.length > 0) throw new Error('bullmq consumer already started');
      const common = {
        prefix,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 0 },
        maxStalledCount: options.maxStalledCount ?? 2,
        ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
        ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
      };
      const logWorkerError = throttledErrorLog(logger, 'queue worker: Redis error');
      const specs: Array<[Kind, string, number]> = [
        ['publish', PUBLISH_QUEUE, concurrency],
        ['deliver', DELIVERY_QUEUE, deliveryConcurrency],
        ['unpublish', UNPUBLISH_QUEUE, concurrency],
      ];
      for (const [kind, queueName, workerConcurrency] of specs) {
        const worker = new Worker<JobData>(queueName, processor(kind, handlers), {
          ...common,
          connection: connectionFor(queueName),
          concurrency: workerConcurrency,
        });
        worker.on('error', (error) => logWorkerError(error, { prefix, queue: queueName }));
        // Another worker may take a job whose lock we lost: tell its handler to stop.
        worker.on('lockRenewalFailed', (jobIds: string[]) => {
          for (const jobId of jobIds) {
            running.get(`${queueName}/${jobId}`)?.abort(new Error('job lock lost'));
          }
        });
        worker.on('stalled', (jobId: string) => {
          logger.warn({ queue: queueName, jobId }, 'stalled job moved back to wait');
        });
        workers.push(worker);
      }
      try {
        await withTimeout(
          Promise.all(workers.map((worker) => worker.waitUntilReady())),
          startTimeoutMs,
          `Redis not ready after ${startTimeoutMs} ms`,
        );
        // On the worker's command connection (its blocking one is held by the wait for jobs),
        // and not awaited: a Redis gone again must not hold the start up.
        if (workers[0]) void warnOnCoarseRedisTimers(workers[0].client, logger);
      } catch (error) {
        logger.warn({ err: errorMessage(error) }, 'queue workers started; Redis not reachable yet');
      }
    },

    close() {
      closePromise ??= (async () => {
        shuttingDown = true;
        if (workers.length === 0) return;
        // worker.close(): stops fetching, waits for the jobs in flight, closes connections.
        const closing = Promise.allSettled(workers.map((worker) => worker.close()));
        const graceTimer = setTimeout(() => abortAll('shutting down'), shutdownGraceMs);
        try {
          await withTimeout(
            closing,
            shutdownGraceMs + shutdownTimeoutMs,
            'handlers still running after the shutdown timeout',
          );
        } catch (error) {
          logger.error(
            { err: errorMessage(error), running: [...running.keys()] },
            'queue workers closed without waiting; their jobs will be recovered as stalled',
          );
          for (const worker of workers) worker.disconnect().catch(() => {});
        } finally {
          clearTimeout(graceTimer);
          await Promise.allSettled(
            clusters.splice(0).map((cluster) => cluster.quit().catch(() => cluster.disconnect())),
          );
        }
      })();
      return closePromise;
    },
  };
}
