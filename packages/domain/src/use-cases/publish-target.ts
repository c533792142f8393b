import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { Post, PostTarget, SocialAccount } from '../model.ts';
import { outageOf } from '../outages.ts';
import { nextScheduledRead } from '../policies/metrics-schedule.ts';
import type { JobContext, PlatformPublisher, PublishOutcome } from '../ports/index.ts';
import { SecretUnreadableError } from '../secret-cipher.ts';
import { expireConnection } from './connection-tokens.ts';
import { targetEvent } from './event-bodies.ts';
import { emitEvents } from './event-deliveries.ts';
import {
  afterPlatformRefusal,
  describeRateLimit,
  PaceDeferral,
  type PaceWait,
  paceTarget,
} from './pace-target.ts';
import { buildRequest, keepLease } from './publish-request.ts';
import { sandboxOutcome } from './sandbox.ts';

const failed = (code: string, message: string, retryable: boolean): PublishOutcome => ({
  kind: 'failed',
  code,
  message,
  retryable,
});

interface PublisherRun {
  outcome: PublishOutcome;
  /** Another worker took the target over while this one ran: this claim no longer counts. */
  leaseLost: boolean;
  /** The counted call was not made: the connection is out of budget until this slot. */
  deferred?: PaceWait;
  /** The service's own database or Redis failed inside the run (the error, to rethrow). */
  outage?: unknown;
}

/**
 * The pacing hook of one run: asks the pacer once, just before the counted call, and remembers
 * a refusal, so the run ends waiting even if a publisher wrapped the PaceDeferral it threw.
 */
function countedCallGate(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount,
  job: JobContext,
) {
  let asked: Promise<void> | null = null;
  let deferred: PaceWait | undefined;
  const ask = async () => {
    const wait = await paceTarget(deps, target, connection, job);
    if (wait) {
      deferred = wait;
      throw new PaceDeferral(wait);
    }
  };
  return {
    beforeCountedCall: () => {
      asked ??= ask();
      return asked;
    },
    deferred: () => deferred,
  };
}

/**
 * Calls the publisher under a renewed lease; a throw is a transient `internal_error`. An outage
 * of the service's own database or Redis inside the run (recording an intent, saving progress
 * or tokens, pacing) is not the platform's answer: it comes back as `outage`, for the worker
 * to wait out without spending an attempt.
 */
async function callPublisher(
  deps: CoreDeps,
  publisher: PlatformPublisher,
  post: Post,
  target: PostTarget,
  connection: SocialAccount,
  resume: boolean,
  job: JobContext,
): Promise<PublisherRun> {
  const lease = new AbortController();
  const stopLease = keepLease(deps, target.id, lease);
  const gate = countedCallGate(deps, target, connection, job);
  try {
    const signal = AbortSignal.any([job.signal, lease.signal]);
    const request = buildRequest(deps, post, target, connection, signal, gate.beforeCountedCall);
    const outcome = resume ? await publisher.resume(request) : await publisher.publish(request);
    const deferred = gate.deferred();
    if (deferred) return { outcome, leaseLost: lease.signal.aborted, deferred };
    return { outcome, leaseLost: lease.signal.aborted };
  } catch (error) {
    const deferred = gate.deferred();
    if (deferred) {
      const message = errorMessage(error);
      return {
        outcome: failed('rate_limited', message, true),
        leaseLost: lease.signal.aborted,
        deferred,
      };
    }
    if (outageOf(error)) {
      const outcome = failed('internal_error', errorMessage(error), true);
      return { outcome, leaseLost: lease.signal.aborted, outage: error };
    }
    if (error instanceof SecretUnreadableError) {
      // Another attempt would read the same bytes: failed for good, nothing was sent.
      const message = `${error.message}; reconnect the account`;
      return { outcome: failed('token_unreadable', message, false), leaseLost: false };
    }
    const message = errorMessage(error);
    return { outcome: failed('internal_error', message, true), leaseLost: lease.signal.aborted };
  } finally {
    stopLease();
  }
}

async function runTarget(
  deps: CoreDeps,
  post: Post,
  target: PostTarget,
  resume: boolean,
  job: JobContext,
  connection: SocialAccount | null,
): Promise<PublisherRun> {
  const settled = (outcome: PublishOutcome): PublisherRun => ({ outcome, leaseLost: false });
  // Decided by the target, not the connection: what was promised at creation holds.
  if (target.sandbox) return settled(sandboxOutcome(post, target));
  if (!connection) {
    return settled(failed('connection_missing', 'the social account was removed', false));
  }
  if (connection.status !== 'active') {
    return settled({
      kind: 'connection_expired',
      message: `the social account is ${connection.status}; reconnect it`,
    });
  }
  const publisher = deps.platforms.get(target.platform);
  if (!publisher) {
    const message = `publishing to ${target.platform} is not available`;
    return settled(failed('platform_unsupported', message, false));
  }
  return callPublisher(deps, publisher, post, target, connection, resume, job);
}

/**
 * What became of a claimed target in this run: settled (`recorded`: the target as this run
 * stored its terminal result; null when the result was not ours to record), handed back for a
 * retry that spends an attempt, handed back to wait until the platform's named time, or handed
 * back untouched after an outage of the service's own database or Redis (`error`, which the job
 * rethrows once all its targets are done, so the worker waits without spending an attempt).
 */
export type TargetRun =
  | { kind: 'settled'; recorded: PostTarget | null }
  | { kind: 'retry' }
  | { kind: 'wait'; until: Date }
  | { kind: 'outage'; error: unknown };

/**
 * A platform's "slow down" as this job may honour it: a wait until the time it named, or, when
 * the job has waited too often or the time is too far, a transient failure like any other.
 */
export function throttleAsFailure(
  deps: CoreDeps,
  outcome: { code: string; message: string; retryAt: Date },
  job: JobContext,
  at: Date,
): { kind: 'failed'; code: string; message: string; retryable: true } | null {
  const { publishMaxWaits, publishMaxWaitMs } = deps.settings;
  const until = outcome.retryAt.toISOString();
  if (outcome.retryAt.getTime() - at.getTime() > publishMaxWaitMs) {
    const message = `${outcome.message} (the platform asks to wait until ${until}, longer than this service waits)`;
    return { kind: 'failed', code: outcome.code, message, retryable: true };
  }
  if (job.waits >= publishMaxWaits) {
    const message = `${outcome.message} (rate limited ${job.waits} times; counted as a failed attempt)`;
    return { kind: 'failed', code: outcome.code, message, retryable: true };
  }
  return null;
}

/**
 * A target published at `at` is followed from then on: its numbers and its comments, each
 * first read at its schedule's first offset (none when the schedule is off).
 */
function firstReads(
  deps: Pick<CoreDeps, 'settings'>,
  at: Date,
): { metricsDueAt?: Date; commentsDueAt?: Date } {
  const metrics = nextScheduledRead(at, 0, at, deps.settings.metricsRefreshScheduleMs);
  const comments = nextScheduledRead(at, 0, at, deps.settings.commentsRefreshScheduleMs);
  return {
    ...(metrics.dueAt ? { metricsDueAt: metrics.dueAt } : {}),
    ...(comments.dueAt ? { commentsDueAt: comments.dueAt } : {}),
  };
}
/** Records a publisher's outcome on the target: complete it, or hand it back for a retry. */
async function recordOutcome(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount | null,
  run: PublisherRun,
  job: JobContext,
): Promise<TargetRun> {
  const { posts } = deps.repos;
  const at = deps.clock.now();
  let outcome = run.outcome;
  if (outcome.kind === 'throttled' && !run.leaseLost && !job.signal.aborted) {
    const asFailure = throttleAsFailure(deps, outcome, job, at);
    if (asFailure === null) {
      const retryAt = await afterPlatformRefusal(deps, target, connection, outcome.retryAt);
      const until = retryAt.toISOString();
      const error = {
        errorCode: outcome.code,
        errorMessage: `${outcome.message} (waiting until ${until}, as the platform asks)`,
      };
      await posts.releaseTarget(target.id, error, at);
      return { kind: 'wait', until: retryAt };
    }
    outcome = asFailure;
  }
  const publishedSoFar = outcome.kind === 'failed' ? outcome.publishedSoFar : undefined;
  const fail = (errorCode: string, errorMessage: string, retryable: boolean) =>
    posts.completeTarget(target.id, {
      status: 'failed',
      errorCode,
      errorMessage,
      retryable,
      at,
      ...(publishedSoFar ? { publishedSoFar } : {}),
    });

  let recorded: PostTarget | null = null;
  let handedBack = false;
  if (outcome.kind === 'published') {
    // Recorded even after a lost lease: it is the truth, and the new holder's resume would find it.
    const { platformPostId, platformUrl, threadPostIds, firstCommentId } = outcome;
    recorded = await posts.completeTarget(target.id, {
      status: 'published',
      platformPostId,
      platformUrl,
      at,
      ...firstReads(deps, at),
      ...(threadPostIds ? { threadPostIds } : {}),
      ...(firstCommentId ? { firstCommentId } : {}),
    });
  } else if (run.leaseLost) {
    // The target belongs to another worker now; touching it would break that worker's claim:
    // nothing is recorded (warned below).
    recorded = null;
  } else if (outcome.kind === 'connection_expired') {
    if (connection) await expireConnection(deps, connection, outcome.message);
    recorded = await fail('connection_expired', outcome.message, false);
  } else if (outcome.kind === 'failed' && !outcome.retryable) {
    recorded = await fail(outcome.code, outcome.message, false);
  } else if (job.signal.aborted) {
    // Shutting down: hand the target back; the job's next run resumes it.
    await posts.releaseTarget(target.id, null, at);
    handedBack = true;
  } else if (job.attempt >= job.maxAttempts) {
    const message = `${outcome.message} (gave up after ${job.attempt} attempts)`;
    recorded = await fail(outcome.code, message, true);
  } else {
    const error = { errorCode: outcome.code, errorMessage: outcome.message };
    await posts.releaseTarget(target.id, error, at);
    handedBack = true;
  }
  if (handedBack) return { kind: 'retry' };
  if (recorded !== null) {
    if (outcome.kind === 'published') {
      deps.metrics?.targetFinished(target.platform, 'published', null);
    } else {
      const code = 'code' in outcome ? outcome.code : 'connection_expired';
      deps.metrics?.targetFinished(target.platform, 'failed', code);
    }
  } else {
    deps.logger.warn(
      { targetId: target.id, outcome: outcome.kind, leaseLost: run.leaseLost },
      'publish outcome not recorded: the target was no longer held by this job',
    );
  }
  return { kind: 'settled', recorded };
}

/**
 * Publishes (or resumes) one claimed target and records the result. `connection` is the
 * target's social account as the caller loaded it (null: it no longer exists); the publish job
 * loads the connections of all its targets in one query. Resume is chosen when the
 * platform may already hold part of the work: stored intermediate ids, or a claim taken over
 * from a stalled worker whose publisher may have got further than it recorded.
 */
export async function publishClaimedTarget(
  deps: CoreDeps,
  post: Post,
  target: PostTarget,
  takenOver: boolean,
  job: JobContext,
  connection: SocialAccount | null,
): Promise<TargetRun> {
  const resume = takenOver || target.resumeState !== null;
  const run = await runTarget(deps, post, target, resume, job, connection);
  // The publisher reached its counted call with the connection out of budget and did not make
  // it: the target is handed back until its slot instead of calling and being refused.
  if (run.deferred && !run.leaseLost && !job.signal.aborted) {
    const { until, limit } = run.deferred;
    await deps.repos.posts.releaseTarget(
      target.id,
      {
        errorCode: 'rate_limited',
        errorMessage: `waiting for the platform's limit (${describeRateLimit(limit)} per connection) until ${until.toISOString()}`,
      },
      deps.clock.now(),
    );
    return { kind: 'wait', until };
  }
  if (run.outage !== undefined && !run.leaseLost && !job.signal.aborted) {
    // Untouched, like a shutdown's: the next run resumes from the intent or progress recorded.
    // While the database is still down this write fails too, and the lease runs out instead.
    await deps.repos.posts.releaseTarget(target.id, null, deps.clock.now());
    return { kind: 'outage', error: run.outage };
  }
  const settled = await recordOutcome(deps, target, connection, run, job);
  // Only the run that recorded the terminal result announces it. Stored right after the
  // result (one statement, no unit of work to share): a crash in between loses this event,
  // while the post's outcome event is still sent.
  if (settled.kind === 'settled' && settled.recorded) {
    const meta = job.requestId === undefined ? {} : { requestId: job.requestId };
    await emitEvents(deps, [targetEvent(post, settled.recorded)], meta);
  }
  return settled;
}
