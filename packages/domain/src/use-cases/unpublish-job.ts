/**
 * The unpublish job of one post (job id = post id): claims its `removing` targets, deletes each
 * on its platform, and once none is left `removing` closes the request with `post.unpublished`.
 * Safe to run any number of times, by any number of workers: claims are leased like publishing's,
 * and a delete asked twice is still one delete.
 */
import type { CoreDeps } from '../deps.ts';
import type { PostWithTargets } from '../model.ts';
import { exponentialBackoff } from '../policies/backoff.ts';
import type { JobContext, JobResult } from '../ports/index.ts';
import { DONE, retryAfter, waitFor } from './job-results.ts';
import { connectionsOf } from './publish-job.ts';
import { type RemovalRun, removeClaimedTarget } from './remove-target.ts';
import { closeUnpublish, stopReadingRemoved } from './unpublish-events.ts';

/** Margin after another worker's lease runs out before taking its target over. */
const LEASE_GRACE_MS = 100;
/**
 * Claim rounds in one run: targets asked while the job runs are claimed by the next round (an
 * ask does not add a second job beside a running one). Bounded: each ask adds at most the post's
 * targets, and the reconciler picks up whatever a last round leaves.
 */
const MAX_ROUNDS = 3;

/** One round: claim what nobody holds, take each down. */
async function runRound(deps: CoreDeps, postId: string, job: JobContext): Promise<RemovalRun[]> {
  const now = deps.clock.now();
  const claims = await deps.repos.posts.claimRemovals(postId, {
    now,
    leaseExpiresAt: new Date(now.getTime() + deps.settings.targetLeaseMs),
  });
  if (claims.length === 0) return [];
  const connections = await connectionsOf(deps, claims);
  return Promise.all(
    claims.map(({ target }) =>
      removeClaimedTarget(deps, target, job, connections.get(target.socialAccountId) ?? null),
    ),
  );
}

/**
 * When handed-back targets run again: after the backoff if one failed transiently (an attempt
 * spent), else (they all wait for a limit) at the latest time named, spending none.
 */
function retryHandedBack(deps: CoreDeps, runs: RemovalRun[], job: JobContext): JobResult {
  const now = deps.clock.now().getTime();
  const waits = runs.flatMap((run) => (run.kind === 'wait' ? [run.until.getTime()] : []));
  const waitMs = waits.length > 0 ? Math.max(...waits) - now : 0;
  if (!runs.some((run) => run.kind === 'retry')) {
    return waitFor(waitMs, "rate-limited: waiting for the platform's limit on the account");
  }
  const { publishRetryBaseMs, publishRetryMaxMs } = deps.settings;
  const backoff = exponentialBackoff(job.attempt, publishRetryBaseMs, publishRetryMaxMs);
  return retryAfter(Math.max(backoff, waitMs), 'deletes failed transiently and will be retried');
}

/** What is left once this run's rounds are done: retry, wait for another worker, or close. */
async function afterRuns(
  deps: CoreDeps,
  post: PostWithTargets,
  runs: RemovalRun[],
  job: JobContext,
): Promise<JobResult> {
  const removing = post.targets.filter((target) => target.status === 'removing');
  if (removing.length === 0) {
    await stopReadingRemoved(deps, post);
    await closeUnpublish(
      deps,
      post,
      job.requestId === undefined ? {} : { requestId: job.requestId },
    );
    return DONE;
  }
  const now = deps.clock.now().getTime();
  if (removing.some((target) => target.leaseExpiresAt === null)) {
    return retryHandedBack(deps, runs, job);
  }
  const expiries = removing.map((target) => target.leaseExpiresAt?.getTime() ?? now);
  const wait = Math.max(0, Math.min(...expiries) - now) + LEASE_GRACE_MS;
  return retryAfter(wait, 'targets are being taken down by another worker');
}

export async function processUnpublishJob(
  deps: CoreDeps,
  postId: string,
  job: JobContext,
): Promise<JobResult> {
  if (job.signal.aborted) return retryAfter(0, 'worker shutting down');
  const runs: RemovalRun[] = [];
  let post: PostWithTargets | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const ran = await runRound(deps, postId, job);
    runs.push(...ran);
    post = await deps.repos.posts.findById(postId);
    if (!post || job.signal.aborted) break;
    // Another round only for targets asked meanwhile: none handed back by this run waits.
    const handedBack = ran.some((run) => run.kind !== 'settled');
    const unclaimed = post.targets.some(
      (t) => t.status === 'removing' && t.leaseExpiresAt === null,
    );
    if (ran.length === 0 || handedBack || !unclaimed) break;
  }
  if (!post) return DONE;
  if (job.signal.aborted) return retryAfter(0, 'worker shutting down');
  return afterRuns(deps, post, runs, job);
}
