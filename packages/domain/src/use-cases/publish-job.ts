import type { CoreDeps } from '../deps.ts';
import {
  type PostTarget,
  type PostWithTargets,
  type SocialAccount,
  STARTABLE_POST_STATUSES,
  TERMINAL_TARGET_STATUSES,
} from '../model.ts';
import { exponentialBackoff } from '../policies/backoff.ts';
import { EARLY_RUN_TOLERANCE_MS } from '../policies/job-retry.ts';
import type { JobContext, JobResult, TargetClaim } from '../ports/index.ts';
import { finalizePost } from './finalize-post.ts';
import { DONE, retryAfter, waitFor } from './job-results.ts';
import { publishClaimedTarget, type TargetRun } from './publish-target.ts';

/** Margin after another worker's lease runs out before taking its target over. */
const LEASE_GRACE_MS = 100;

const leaseExpired = (target: PostTarget, now: Date): boolean =>
  target.leaseExpiresAt === null || target.leaseExpiresAt.getTime() <= now.getTime();

/**
 * The connections of the claimed targets, loaded once for the whole run. Sandbox targets never
 * use theirs (what was promised at creation holds), so a sandbox-only run loads none.
 */
export async function connectionsOf(
  deps: CoreDeps,
  claims: TargetClaim[],
): Promise<Map<string, SocialAccount>> {
  const ids = [
    ...new Set(
      claims.filter(({ target }) => !target.sandbox).map(({ target }) => target.socialAccountId),
    ),
  ];
  if (ids.length === 0) return new Map();
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
    return waitFor(waitMs, "rate-limited: waiting for the platform's limit on the account");
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
 * The post after this run without reading it again, when the run knows every target's state:
 * each was terminal at the start or recorded terminal by this run. null: read it.
 */
function postAfterRunIfKnown(post: PostWithTargets, runs: TargetRun[]): PostWithTargets | null {
  const recorded = new Map<string, PostTarget>();
  for (const run of runs)
    if (run.kind === 'settled' && run.recorded) recorded.set(run.recorded.id, run.recorded);
  const targets: PostTarget[] = [];
  for (const target of post.targets) {
    const latest = recorded.get(target.id) ?? target;
    if (!TERMINAL_TARGET_STATUSES.includes(latest.status)) return null;
    targets.push(latest);
  }
  return { ...post, targets };
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
  if (job.signal.aborted) return retryAfter(0, 'worker shutting down');
  const { posts } = deps.repos;
  const now = deps.clock.now();
  // One statement: the post moves to publishing and its targets are claimed, unless it is
  // finished, cancelled (a cancel that won the race leaves the post alone) or not yet due.
  const start = await posts.startPublish(postId, {
    now,
    startBefore: new Date(now.getTime() + EARLY_RUN_TOLERANCE_MS),
    leaseExpiresAt: new Date(now.getTime() + deps.settings.targetLeaseMs),
  });
  if (!start) return DONE;
  const { post, claims } = start;
  if (!start.started) {
    // Finished, cancelled, or waiting for approval (approving it enqueues it again): nothing to do.
    if (!STARTABLE_POST_STATUSES.includes(post.status) || post.scheduledAt === null) return DONE;
    // The stored time is the truth: a job that fires early (its post was rescheduled while the
    // job waited, or a reconciler added it at the old time) waits for it. Not a failure, so it
    // spends no attempt: a post rescheduled often must not run out of them.
    return waitFor(post.scheduledAt.getTime() - now.getTime(), 'scheduled for later');
  }
  if (start.previousStatus !== 'publishing') {
    deps.metrics?.publishStarted(now.getTime() - (post.scheduledAt ?? post.createdAt).getTime());
  }
  const connections = await connectionsOf(deps, claims);
  const { targets: _targets, ...publishing } = post;
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
  // After all of them, so that no target is still running when the job runs again.
  const outage = runs.find((run) => run.kind === 'outage');
  if (outage) throw outage.error;
  const current = postAfterRunIfKnown(post, runs) ?? (await posts.findById(post.id));
  if (current?.status !== 'publishing') return DONE;
  return afterRun(deps, current, runs, job);
}
