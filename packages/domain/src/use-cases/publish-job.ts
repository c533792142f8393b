import type { CoreDeps } from '../deps.ts';
import {
  type PostTarget,
  type PostWithTargets,
  type SocialAccount,
  TERMINAL_POST_STATUSES,
} from '../model.ts';
import type { JobContext, JobResult, TargetClaim } from '../ports/index.ts';
import { DONE, exponentialBackoff, retryAfter, waitFor } from './backoff.ts';
import { finalizePost } from './finalize-post.ts';
import { publishClaimedTarget, type TargetRun } from './publish-target.ts';

/** A job that runs this much before its post's time is early on purpose only by clock skew. */
const EARLY_TOLERANCE_MS = 50;
/** Margin after another worker's lease runs out before taking its target over. */
const LEASE_GRACE_MS = 100;

const leaseExpired = (target: PostTarget, now: Date): boolean =>
  target.leaseExpiresAt === null || target.leaseExpiresAt.getTime() <= now.getTime();

/**
 * Claims what this run may work on: pending targets, and stalled ones whose lease ran out,
 * all in one statement (skipped when the post, as read, has nothing claimable).
 */
async function claimTargets(deps: CoreDeps, post: PostWithTargets): Promise<TargetClaim[]> {
  const now = deps.clock.now();
  const claimable = post.targets.some(
    (target) =>
      target.status === 'pending' || (target.status === 'publishing' && leaseExpired(target, now)),
  );
  if (!claimable) return [];
  const lease = new Date(now.getTime() + deps.settings.targetLeaseMs);
  return deps.repos.posts.claimTargets(post.id, lease, now, true);
}

/** The connections of the claimed targets, loaded once for the whole run. */
async function connectionsOf(
  deps: CoreDeps,
  claims: TargetClaim[],
): Promise<Map<string, SocialAccount>> {
  if (claims.length === 0) return new Map();
  const ids = [...new Set(claims.map(({ target }) => target.socialAccountId))];
  const found = await deps.repos.socialAccounts.findByIds(ids);
  return new Map(found.map((connection) => [connection.id, connection]));
}

/**
 * When pending targets run again: after the backoff if any failed transiently (an attempt
 * spent), else (all of them wait out a rate limit) at the latest time the platforms named.
 */
function retryPending(deps: CoreDeps, runs: TargetRun[], job: JobContext, now: Date): JobResult {
  const { settings } = deps;
  const waits = runs.flatMap((run) => (run.kind === 'wait' ? [run.until.getTime()] : []));
  const waitMs = waits.length > 0 ? Math.max(...waits) - now.getTime() : 0;
  if (waits.length > 0 && !runs.some((run) => run.kind === 'retry')) {
    return waitFor(
      waitMs,
      'the platform rate-limited the account: waiting until the time it named',
    );
  }
  const backoff = exponentialBackoff(
    job.attempt,
    settings.publishRetryBaseMs,
    settings.publishRetryMaxMs,
  );
  return retryAfter(Math.max(backoff, waitMs), 'targets failed transiently and will be retried');
}

/** What to do once this run's targets are settled: retry, wait for other workers, or finish. */
async function afterRun(
  deps: CoreDeps,
  post: PostWithTargets,
  runs: TargetRun[],
  job: JobContext,
): Promise<JobResult> {
  const now = deps.clock.now();
  if (post.targets.some((target) => target.status === 'pending')) {
    return retryPending(deps, runs, job, now);
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
  await finalizePost(deps, post, job.requestId === undefined ? {} : { requestId: job.requestId });
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
  if (post.status !== 'publishing') {
    deps.metrics?.publishStarted(now.getTime() - (post.scheduledAt ?? post.createdAt).getTime());
  }
  const claims = await claimTargets(deps, post);
  const connections = await connectionsOf(deps, claims);
  const { targets: _targets, ...plainPost } = post;
  const publishing = { ...plainPost, status: 'publishing' as const };
  const runs = await Promise.all(
    claims.map(({ target, takenOver }) =>
      publishClaimedTarget(
        deps,
        publishing,
        target,
        takenOver,
        job,
        connections.get(target.socialAccountId) ?? null,
      ),
    ),
  );
  const current = await posts.findById(post.id);
  if (current?.status !== 'publishing') return DONE;
  return afterRun(deps, current, runs, job);
}
