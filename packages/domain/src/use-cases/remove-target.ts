/**
 * Takes one claimed `removing` target down on its platform and records the result: the unpublish
 * job's counterpart of publish-target.ts, with the same lease, pacing and outcome rules. A
 * delete is idempotent (the platform's 404 is `removed`), so a retried or taken-over target is
 * simply asked again.
 */
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { PostTarget, SocialAccount } from '../model.ts';
import type {
  JobContext,
  PlatformRemover,
  RemovalCompletion,
  RemoveOutcome,
} from '../ports/index.ts';
import { SecretUnreadableError } from '../secret-cipher.ts';
import { expireConnection } from './connection-tokens.ts';
import {
  afterPlatformRefusal,
  describeRateLimit,
  type PaceWait,
  paceTarget,
} from './pace-target.ts';
import { decryptConnection, keepLease, tokenSaver } from './publish-request.ts';
import { throttleAsFailure } from './publish-target.ts';

/** What became of a claimed target: ended, handed back for a retry, or waiting until a time. */
export type RemovalRun = { kind: 'settled' } | { kind: 'retry' } | { kind: 'wait'; until: Date };

interface RemoverCall {
  outcome: RemoveOutcome;
  /** Another worker took the target over while this one ran: its result is not ours to record. */
  leaseLost: boolean;
  /** The delete was not sent: the connection is out of budget until then. */
  deferred?: PaceWait;
}

const failed = (code: string, message: string, retryable: boolean): RemoveOutcome => ({
  kind: 'failed',
  code,
  message,
  retryable,
});

/** Why a real target cannot be taken down by its connection, or null when it may be asked. */
function unremovable(
  target: PostTarget,
  connection: SocialAccount,
  remover: PlatformRemover,
): RemoveOutcome | null {
  if (connection.status !== 'active') {
    const message = `the social account is ${connection.status}; reconnect it, then unpublish again`;
    return failed('connection_expired', message, false);
  }
  if (target.platformPostId === null) {
    return failed('not_published', 'the target has no platform post id to delete', false);
  }
  const granted = new Set(connection.scopes);
  const missing = (remover.scopes ?? []).filter((scope) => !granted.has(scope));
  // Unknown scopes (a brought token) are tried: the platform's answer decides.
  if (connection.scopes.length > 0 && missing.length > 0) {
    const message = `the connection was made without ${missing.join(', ')}, which deleting needs: reconnect the account`;
    return failed('missing_scope', message, false);
  }
  return null;
}

/** Calls the remover under a renewed lease, after the pacer; a throw is a transient failure. */
async function callRemover(
  deps: CoreDeps,
  remover: PlatformRemover,
  target: PostTarget,
  connection: SocialAccount,
  job: JobContext,
): Promise<RemoverCall> {
  const lease = new AbortController();
  const stopLease = keepLease(deps, target.id, lease);
  try {
    const deferred = await paceTarget(deps, target, connection, job);
    if (deferred) {
      // Not sent: recordRemoval hands the target back until the slot (this outcome is what
      // stands only when the job is stopping meanwhile).
      const outcome = failed('rate_limited', "waiting for the connection's budget", true);
      return { outcome, leaseLost: false, deferred };
    }
    const outcome = await remover.remove({
      connection: decryptConnection(deps, connection),
      platformPostId: target.platformPostId ?? '',
      platformUrl: target.platformUrl,
      threadPostIds: target.threadPostIds,
      firstCommentId: target.firstCommentId,
      signal: AbortSignal.any([job.signal, lease.signal]),
      saveTokens: tokenSaver(deps, connection),
    });
    return { outcome, leaseLost: lease.signal.aborted };
  } catch (error) {
    if (error instanceof SecretUnreadableError) {
      const message = `${error.message}; reconnect the account`;
      return { outcome: failed('token_unreadable', message, false), leaseLost: false };
    }
    const outcome = failed('internal_error', errorMessage(error), true);
    return { outcome, leaseLost: lease.signal.aborted };
  } finally {
    stopLease();
  }
}

/** Runs the delete of one claimed target (sandbox targets end at once, never calling out). */
function runRemoval(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount | null,
  job: JobContext,
): Promise<RemoverCall> | RemoverCall {
  const settled = (outcome: RemoveOutcome): RemoverCall => ({ outcome, leaseLost: false });
  // Decided by the target, not the connection: a sandbox post was never out there.
  if (target.sandbox) return settled({ kind: 'removed' });
  if (!connection)
    return settled(failed('connection_missing', 'the social account was removed', false));
  const remover = deps.platforms.remover(target.platform);
  if (!remover) {
    const message = `deleting ${target.platform} posts is not available`;
    return settled(failed('platform_unsupported', message, false));
  }
  const refused = unremovable(target, connection, remover);
  if (refused) return settled(refused);
  return callRemover(deps, remover, target, connection, job);
}

/** Hands the target back with the error that delays it; the job runs it again. */
async function handBack(
  deps: CoreDeps,
  target: PostTarget,
  error: { errorCode: string; errorMessage: string } | null,
  run: RemovalRun,
): Promise<RemovalRun> {
  await deps.repos.posts.releaseRemoval(target.id, error, deps.clock.now());
  return run;
}

/** Records the outcome of one claimed target: ended, handed back, or waiting for a time. */
async function recordRemoval(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount | null,
  call: RemoverCall,
  job: JobContext,
): Promise<RemovalRun> {
  const { posts } = deps.repos;
  const at = deps.clock.now();
  const stopped = call.leaseLost || job.signal.aborted;
  if (call.deferred && !stopped) {
    const { until, limit } = call.deferred;
    const errorMessage = `waiting for the platform's limit (${describeRateLimit(limit)} per connection) until ${until.toISOString()}`;
    return handBack(
      deps,
      target,
      { errorCode: 'rate_limited', errorMessage },
      { kind: 'wait', until },
    );
  }
  let outcome = call.outcome;
  if (outcome.kind === 'throttled' && !stopped) {
    const asFailure = throttleAsFailure(deps, outcome, job, at);
    if (asFailure === null) {
      const until = await afterPlatformRefusal(deps, target, connection, outcome.retryAt);
      const errorMessage = `${outcome.message} (waiting until ${until.toISOString()}, as the platform asks)`;
      return handBack(
        deps,
        target,
        { errorCode: outcome.code, errorMessage },
        { kind: 'wait', until },
      );
    }
    outcome = asFailure;
  }
  const complete = async (completion: RemovalCompletion): Promise<RemovalRun> => {
    await posts.completeRemoval(target.id, completion);
    return { kind: 'settled' };
  };
  const fail = (errorCode: string, errorMessage: string, retryable: boolean) =>
    complete({ status: 'remove_failed', errorCode, errorMessage, retryable, at });
  // Recorded even after a lost lease: it is the truth, and asking again would find it gone.
  if (outcome.kind === 'removed') return complete({ status: 'removed', at });
  if (call.leaseLost) {
    deps.logger.warn(
      { targetId: target.id, outcome: outcome.kind },
      'removal outcome not recorded: the target was no longer held by this job',
    );
    return { kind: 'settled' };
  }
  if (outcome.kind === 'connection_expired') {
    if (connection) await expireConnection(deps, connection, outcome.message);
    return fail('connection_expired', outcome.message, false);
  }
  if (outcome.kind === 'failed' && !outcome.retryable) {
    return fail(outcome.code, outcome.message, false);
  }
  // Shutting down: hand it back untouched; the job's next run asks again.
  if (job.signal.aborted) return handBack(deps, target, null, { kind: 'retry' });
  const { code, message } = outcome as Extract<RemoveOutcome, { kind: 'failed' | 'throttled' }>;
  if (job.attempt >= job.maxAttempts) {
    return fail(code, `${message} (gave up after ${job.attempt} attempts)`, true);
  }
  return handBack(deps, target, { errorCode: code, errorMessage: message }, { kind: 'retry' });
}

/** Takes one claimed target down and records what became of it. */
export async function removeClaimedTarget(
  deps: CoreDeps,
  target: PostTarget,
  job: JobContext,
  connection: SocialAccount | null,
): Promise<RemovalRun> {
  const call = await runRemoval(deps, target, connection, job);
  return recordRemoval(deps, target, connection, call, job);
}
