import type { CoreDeps } from '../deps.ts';
import { type PostTarget, type PostWithTargets, TERMINAL_POST_STATUSES } from '../model.ts';
import type { JobContext, JobResult } from '../ports/index.ts';
import { DONE, exponentialBackoff, retryAfter } from './backoff.ts';
import { finalizePost } from './finalize-post.ts';
import { publishClaimedTarget } from './publish-target.ts';

/** A job that runs this much before its post's time is early on purpose only by clock skew. */
const EARLY_TOLERANCE_MS = 50;
/** Margin after another worker's lease runs out before taking its target over. */
const LEASE_GRACE_MS = 100;

const leaseExpired = (target: PostTarget, now: Date): boolean =>
  target.leaseExpiresAt === null || target.leaseExpiresAt.getTime() <= now.getTime();

/** Claims what this run may work on: pending targets, and stalled ones whose lease ran out. */
async function claimTargets(
  deps: CoreDeps,
  post: PostWithTargets,
): Promise<Array<{ target: PostTarget; takenOver: boolean }>> {
  const now = deps.clock.now();
  const lease = new Date(now.getTime() + deps.settings.targetLeaseMs);
  const claims: Array<{ target: PostTarget; takenOver: boolean }> = [];
  for (const target of post.targets) {
    const stalled = target.status === 'publishing' && leaseExpired(target, now);
    if (target.status !== 'pending' && !stalled) continue;
    const claimed = await deps.repos.posts.claimTarget(target.id, lease, now, true);
    if (claimed) claims.push({ target: claimed, takenOver: stalled });
  }
  return claims;
}

/** What to do once this run's targets are settled: retry, wait for other workers, or finish. */
async function afterRun(
  deps: CoreDeps,
  post: PostWithTargets,
  job: JobContext,
): Promise<JobResult> {
  const { settings } = deps;
  const now = deps.clock.now();
  if (post.targets.some((target) => target.status === 'pending')) {
    const delay = exponentialBackoff(
      job.attempt,
      settings.publishRetryBaseMs,
      settings.publishRetryMaxMs,
    );
    return retryAfter(delay, 'targets failed transiently and will be retried');
  }
  const held = post.targets.filter((target) => target.status === 'publishing');
  if (held.length > 0) {
    const expiries = held.map((target) =>
      leaseExpired(target, now)
        ? now.getTime()
        : (target.leaseExpiresAt?.getTime() ?? now.getTime()),
    );
    const wait = Math.min(...expiries) - now.getTime() + LEASE_GRACE_MS;
    return retryAfter(wait, 'targets are being published by another worker');
  }
  await finalizePost(deps, post);
  return DONE;
}

/**
 * The publish job of one post (job id = post id). Safe to run any number of times, by any
 * number of workers: target claims guarantee that a published target is never published again.
 */
export async function processPublishJob(
  deps: CoreDeps,
  postId: string,
  job: JobContext,
): Promise<JobResult> {
  const { posts } = deps.repos;
  const post = await posts.findById(postId);
  if (!post || TERMINAL_POST_STATUSES.includes(post.status)) return DONE;
  const now = deps.clock.now();
  if (post.scheduledAt && post.scheduledAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    return retryAfter(post.scheduledAt.getTime() - now.getTime(), 'scheduled for later');
  }
  if (job.signal.aborted) return retryAfter(0, 'worker shutting down');
  // Conditional: a cancel that won the race leaves the post alone.
  const startable = ['scheduled', 'queued', 'publishing'] as const;
  if (!(await posts.transitionStatus(post.id, startable, 'publishing', now))) return DONE;
  const claims = await claimTargets(deps, post);
  const { targets: _targets, ...plainPost } = post;
  const publishing = { ...plainPost, status: 'publishing' as const };
  await Promise.all(
    claims.map(({ target, takenOver }) =>
      publishClaimedTarget(deps, publishing, target, takenOver, job),
    ),
  );
  const current = await posts.findById(post.id);
  if (current?.status !== 'publishing') return DONE;
  return afterRun(deps, current, job);
}
