/**
 * The worker: consumes publish and webhook-delivery jobs with the domain use cases, and runs
 * the reconciler (the database is the truth; the reconciler re-adds whatever the queue lost).
 * Safe with any number of workers: enqueueing is idempotent (job id = post/delivery id) and
 * targets are claimed with conditional updates.
 */
import type { Config } from '@social-publisher/config';
import { deliverWebhook, processPublishJob, reconcile } from '@social-publisher/domain';
import type { Runtime } from './runtime.ts';

export interface Worker {
  /** Stops the reconciler, closes the consumer (in-flight jobs finish or are handed back), closes the runtime. */
  stop(): Promise<void>;
  /** Runs one reconcile pass now (waits for a running one instead of overlapping it). */
  reconcileNow(): Promise<void>;
}

export async function startWorker(
  runtime: Runtime,
  config: Pick<Config, 'worker'>,
): Promise<Worker> {
  const { deps, consumer } = runtime;
  if (!consumer)
    throw new Error('startWorker needs a runtime created with role worker or embedded');
  const { logger } = deps;
  const intervalMs = config.worker.reconcileIntervalMs;

  await consumer.start({
    publish: (postId, ctx) => processPublishJob(deps, postId, ctx),
    deliver: (deliveryId, ctx) => deliverWebhook(deps, deliveryId, ctx),
  });

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  async function pass(): Promise<void> {
    try {
      const report = await reconcile(deps);
      if (report.postsEnqueued + report.leasesResumed + report.deliveriesEnqueued > 0) {
        logger.debug({ ...report }, 'reconciler pass');
      }
    } catch (error) {
      // Database down, etc.: the next pass tries again; the worker keeps running.
      logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        'reconciler pass failed',
      );
    }
  }

  /** One pass at a time: a caller arriving during a pass shares it. */
  function runOnce(): Promise<void> {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** The next pass starts intervalMs after the previous one ended: passes never overlap. */
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void runOnce().then(schedule);
    }, intervalMs);
  }

  // Once at start: rebuilds the in-process queue from the database (and catches up after downtime).
  await runOnce();
  schedule();
  logger.info({ reconcileIntervalMs: intervalMs, queue: runtime.queueKind }, 'worker started');

  let stopping: Promise<void> | undefined;
  return {
    reconcileNow: () => (stopped ? Promise.resolve() : runOnce()),
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        timer = undefined;
        await running;
        logger.info({}, 'worker stopping: waiting for jobs in flight');
        try {
          await consumer.close();
        } catch (error) {
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'consumer close failed',
          );
        }
        await runtime.close();
      })();
      return stopping;
    },
  };
}
