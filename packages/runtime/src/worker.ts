/**
 * The worker: consumes publish and webhook-delivery jobs with the domain use cases, runs the
 * reconciler (the database is the truth; the reconciler re-adds whatever the queue lost) and
 * the token pass (tokens renewed before they expire; expired connect states removed), the
 * sweep of replies their request abandoned, and the read rounds of published posts' numbers
 * and comments. Safe
 * with any number of workers: enqueueing is idempotent (job id = post/delivery id), targets
 * are claimed with conditional updates, and connections are renewed under a lease.
 */

import type { Config } from '@social-publisher/config';
import {
  type CoreDeps,
  deliverWebhook,
  errorMessage,
  type JobContext,
  type JobResult,
  type Logger,
  processPublishJob,
  processUnpublishJob,
  readCommentsRound,
  readMetricsRound,
  reconcile,
  refreshExpiringTokens,
  settleAbandonedReplies,
  sweepExpiredMedia,
  sweepFinishedPosts,
  sweepOldSnapshots,
  waitFor,
  withJitter,
} from '@social-publisher/domain';
import { periodic } from './periodic.ts';
import type { Runtime } from './runtime.ts';
import { isDependencyUnavailable } from './unavailable.ts';

export interface Worker {
  /** Stops the periodic passes, closes the consumer (in-flight jobs finish or are handed back), closes the runtime. */
  stop(): Promise<void>;
  /** Runs one reconcile pass now (waits for a running one instead of overlapping it). */
  reconcileNow(): Promise<void>;
  /** Runs one token pass now (renewals due within the margin, expired connect states). */
  refreshTokensNow(): Promise<void>;
  /** Runs one metrics pass now (the due reads of posts' numbers). */
  readMetricsNow(): Promise<void>;
  /** Runs one comments round now (the due reads of published posts' comments). */
  readCommentsNow(): Promise<void>;
}

/** Passes one metrics round may run back to back while each finds a full batch due. */
const METRICS_PASSES_PER_ROUND = 20;

/** How long a job waits for an unreachable dependency before trying again, and how often. */
const OUTAGE_RETRY_MS = 2_000;
const OUTAGE_MAX_WAITS = 150;

/**
 * The job's dependencies with every log line carrying the id of the HTTP request that caused it
 * (`request_id`, as the API's access log names it), so one grep follows a post end to end.
 */
function forRequest(deps: CoreDeps, ctx: JobContext): CoreDeps {
  const requestId = ctx.requestId;
  if (requestId === undefined) return deps;
  const base = deps.logger;
  const logger: Logger = {
    debug: (obj, msg) => base.debug({ request_id: requestId, ...obj }, msg),
    info: (obj, msg) => base.info({ request_id: requestId, ...obj }, msg),
    warn: (obj, msg) => base.warn({ request_id: requestId, ...obj }, msg),
    error: (obj, msg) => base.error({ request_id: requestId, ...obj }, msg),
  };
  return { ...deps, logger };
}

export async function startWorker(
  runtime: Runtime,
  config: Pick<Config, 'worker'> & Partial<Pick<Config, 'connect' | 'postMetrics'>>,
): Promise<Worker> {
  const { deps, consumer } = runtime;
  if (!consumer)
    throw new Error('startWorker needs a runtime created with role worker or embedded');
  const { logger } = deps;
  const reconcileIntervalMs = config.worker.reconcileIntervalMs;
  const tokenIntervalMs = config.connect?.tokenRefreshIntervalMs ?? 60_000;
  const metricsIntervalMs = config.postMetrics?.readIntervalMs ?? 5_000;

  /**
   * A job that fails because the database (or Redis) is unreachable waits for it a few seconds
   * at a time without spending an attempt: an outage is not the post's fault, and a backoff
   * grown during it would delay publishing long after the database is back.
   */
  const retryWhileUnreachable =
    (kind: string, run: (id: string, ctx: JobContext) => Promise<JobResult>) =>
    async (id: string, ctx: JobContext): Promise<JobResult> => {
      try {
        return await run(id, ctx);
      } catch (error) {
        if (!isDependencyUnavailable(error) || ctx.waits >= OUTAGE_MAX_WAITS) throw error;
        logger.warn(
          { kind, id, err: errorMessage(error) },
          'a dependency is unreachable: the job waits',
        );
        return waitFor(withJitter(OUTAGE_RETRY_MS), 'a dependency is unreachable');
      }
    };
  await consumer.start({
    publish: retryWhileUnreachable('publish', (postId, ctx) =>
      processPublishJob(forRequest(deps, ctx), postId, ctx),
    ),
    deliver: retryWhileUnreachable('deliver', (deliveryId, ctx) =>
      deliverWebhook(forRequest(deps, ctx), deliveryId, ctx),
    ),
    unpublish: retryWhileUnreachable('unpublish', (postId, ctx) =>
      processUnpublishJob(forRequest(deps, ctx), postId, ctx),
    ),
  });

  /** An unreachable database is an outage to ride out (warn), anything else a bug (error). */
  const passFailed = (pass: string, error: unknown) => {
    if (isDependencyUnavailable(error)) {
      logger.warn(
        { err: errorMessage(error) },
        `${pass} pass: database or queue unreachable; retrying`,
      );
    } else {
      logger.error({ err: errorMessage(error) }, `${pass} pass failed`);
    }
  };

  // The first pass rebuilds a queue lost with a process (the in-process queue) at once: it
  // takes even the posts just written, whose own enqueue may have died with that process.
  let firstPass = true;
  const reconciler = periodic(async () => {
    try {
      const report = await reconcile(deps, firstPass ? { graceMs: 0 } : {});
      firstPass = false;
      runtime.metrics.reconciled(report);
      const { postsEnqueued, leasesResumed, deliveriesEnqueued, unpublishesEnqueued } = report;
      if (postsEnqueued + leasesResumed + deliveriesEnqueued + unpublishesEnqueued > 0) {
        logger.debug({ ...report }, 'reconciler pass');
      }
      // Hosted media nothing needs any more (MEDIA_RETENTION_DAYS after their last post).
      const swept = await sweepExpiredMedia(deps);
      if (swept.deleted > 0) logger.info({ ...swept }, 'expired media deleted');
    } catch (error) {
      // Database down, etc.: the next pass tries again; the worker keeps running.
      passFailed('reconciler', error);
    }
  }, reconcileIntervalMs);

  const passAbort = new AbortController();
  const tokens = periodic(async () => {
    try {
      const report = await refreshExpiringTokens(deps, passAbort.signal);
      runtime.metrics.tokenPass(report);
      await deps.repos.oauthStates.deleteExpired(deps.clock.now());
      // Snapshots past METRICS_RETENTION_DAYS, a bounded number per pass.
      await sweepOldSnapshots(deps);
      // Finished posts past POSTS_RETENTION_DAYS (when set), a bounded number per pass.
      const postsDeleted = await sweepFinishedPosts(deps);
      if (postsDeleted > 0) logger.info({ postsDeleted }, 'finished posts past retention deleted');
      if (report.refreshed + report.expired + report.failed > 0) {
        logger.info({ ...report }, 'token pass');
      }
    } catch (error) {
      passFailed('token', error);
    }
  }, tokenIntervalMs);

  // Beside the token pass, on its cadence: replies whose request died and whose client never
  // asked again, looked for on the platform (a pass of its own: its look-ups never hold up a
  // token renewal).
  const replySweep = periodic(async () => {
    try {
      const report = await settleAbandonedReplies(deps, passAbort.signal);
      if (report.claimed > 0) logger.debug({ ...report }, 'abandoned replies settled');
    } catch (error) {
      passFailed('reply sweep', error);
    }
  }, tokenIntervalMs);

  const metricReads = periodic(async () => {
    try {
      // A full batch says more are due: the round reads on at once, a bounded number of passes.
      const report = await readMetricsRound(deps, passAbort.signal, METRICS_PASSES_PER_ROUND);
      if (report.claimed > 0) logger.debug({ ...report }, 'metrics round');
    } catch (error) {
      passFailed('metrics', error);
    }
  }, metricsIntervalMs);

  // Comments are read on the same cadence and read budget as the numbers, in a pass of their own.
  const commentReads = periodic(async () => {
    try {
      const report = await readCommentsRound(deps, passAbort.signal, METRICS_PASSES_PER_ROUND);
      if (report.claimed > 0) logger.debug({ ...report }, 'comments round');
    } catch (error) {
      passFailed('comments', error);
    }
  }, metricsIntervalMs);

  // Once at start: rebuilds the in-process queue from the database (and catches up after downtime).
  await reconciler.runNow();
  reconciler.start();
  void tokens.runNow().then(() => tokens.start());
  void replySweep.runNow().then(() => replySweep.start());
  metricReads.start();
  commentReads.start();
  logger.info(
    { reconcileIntervalMs, tokenRefreshIntervalMs: tokenIntervalMs, queue: runtime.queueKind },
    'worker started',
  );

  let stopping: Promise<void> | undefined;
  return {
    reconcileNow: () => reconciler.runNow(),
    refreshTokensNow: () => tokens.runNow(),
    readMetricsNow: () => metricReads.runNow(),
    readCommentsNow: () => commentReads.runNow(),
    stop: () => {
      stopping ??= (async () => {
        passAbort.abort(new Error('worker stopping'));
        await Promise.all([
          reconciler.stop(),
          tokens.stop(),
          replySweep.stop(),
          metricReads.stop(),
          commentReads.stop(),
        ]);
        logger.info({}, 'worker stopping: waiting for jobs in flight');
        try {
          await consumer.close();
        } catch (error) {
          logger.warn({ err: errorMessage(error) }, 'consumer close failed');
        }
        await runtime.close();
      })();
      return stopping;
    },
  };
}
