import type { CoreDeps } from '../deps.ts';
import { extendSeries } from './recurrence.ts';

export interface ReconcileReport {
  postsEnqueued: number;
  leasesResumed: number;
  deliveriesEnqueued: number;
  /**
   * Unpublish jobs added for open unpublish requests (a lost job, a crashed worker's targets,
   * a request whose last target ended without closing it).
   */
  unpublishesEnqueued: number;
  /** Occurrences of repeating posts created ahead of their time. */
  seriesOccurrencesCreated: number;
  /** Enqueue calls that failed (logged); the next pass tries again. */
  enqueueFailures: number;
}

/** Posts due within this window are enqueued as delayed jobs, so a restarted queue is rebuilt early. */
export const RECONCILE_LOOK_AHEAD_MS = 60_000;

/**
 * A post written this recently is left to the request that wrote it, whose enqueue may still be
 * on its way (the producer gives up within about a second): a job added by the pass first would
 * be the one that runs, without that request's id and trace context (an add of an existing job
 * is a no-op). A post whose enqueue did fail is added by the first pass after this. A webhook
 * delivery not yet attempted is left the same way to the job that stored it. A worker's first
 * pass, which rebuilds a queue lost with its process, takes every one (`graceMs: 0`).
 */
export const RECONCILE_GRACE_MS = 2_000;

/**
 * The database is the truth, the queue only accelerates: re-adds every job the queue may have
 * lost (crash between commit and enqueue, restarted in-process queue, flushed Redis). Adding a
 * job that exists is a no-op, so a pass may enqueue liberally.
 */
export async function reconcile(
  deps: CoreDeps,
  { graceMs = RECONCILE_GRACE_MS }: { graceMs?: number } = {},
): Promise<ReconcileReport> {
  const { repos, queue, logger, settings } = deps;
  const now = deps.clock.now();
  const report: ReconcileReport = {
    postsEnqueued: 0,
    leasesResumed: 0,
    deliveriesEnqueued: 0,
    unpublishesEnqueued: 0,
    seriesOccurrencesCreated: 0,
    enqueueFailures: 0,
  };
  const attempt = async (what: object, enqueue: () => Promise<void>): Promise<boolean> => {
    try {
      await enqueue();
      return true;
    } catch (error) {
      report.enqueueFailures++;
      logger.warn({ ...what, err: String(error) }, 'reconcile: enqueue failed');
      return false;
    }
  };

  // First: an occurrence created here whose enqueue failed is re-added by the pass below.
  report.seriesOccurrencesCreated = await extendSeries(deps);

  const until = new Date(now.getTime() + RECONCILE_LOOK_AHEAD_MS);
  const writtenAfter = now.getTime() - graceMs;
  for (const post of await repos.posts.findDuePosts(until, settings.reconcileBatchSize)) {
    if (post.updatedAt.getTime() > writtenAfter) continue;
    const runAt = post.status === 'scheduled' ? post.scheduledAt : null;
    if (await attempt({ postId: post.id }, () => queue.enqueuePublish(post.id, runAt))) {
      report.postsEnqueued++;
    }
  }

  const stalledPosts = new Set(
    (await repos.posts.findExpiredLeases(now, settings.reconcileBatchSize)).map((t) => t.postId),
  );
  for (const postId of stalledPosts) {
    if (await attempt({ postId }, () => queue.enqueuePublish(postId, null))) report.leasesResumed++;
  }

  // Every open request: its job is a no-op to add while it waits or runs, and a dead worker's
  // claims are taken over once their lease runs out (claimRemovals).
  for (const postId of await repos.posts.findOpenUnpublishes(settings.reconcileBatchSize)) {
    if (await attempt({ postId }, () => queue.enqueueUnpublish(postId, null))) {
      report.unpublishesEnqueued++;
    }
  }

  for (const delivery of await repos.deliveries.findDue(now, settings.reconcileBatchSize)) {
    // A new delivery, the same: the job that stored it enqueues it with its request id.
    if (delivery.attempts === 0 && delivery.createdAt.getTime() > writtenAfter) continue;
    const id = delivery.id;
    if (await attempt({ deliveryId: id }, () => queue.enqueueDelivery(id, null))) {
      report.deliveriesEnqueued++;
    }
  }
  if (report.postsEnqueued + report.leasesResumed + report.deliveriesEnqueued > 0) {
    logger.debug({ ...report }, 'reconcile pass');
  }
  return report;
}
