/**
 * The worker's sweep of abandoned replies. A reply whose request died between its intent and
 * its answer stays `sending` until its client asks again with the same key; a client that never
 * does would leave it so for ever. Each pass takes the `sending` replies older than the
 * in-flight time (REPLY_IN_FLIGHT_MS), a few at a time, each held for its look-up so that two
 * workers (or a worker and a retry) never look for the same one, and settles each as a retry
 * would (settleAbandonedReply): found on the platform, `sent`; else `outcome_unknown`. Nothing
 * is ever sent from here.
 *
 * The look-ups are reads: they spend the connection's read budget (as comment reads do), and a
 * reply whose budget is spent is left held until its hold passes, then taken again.
 */
import type { CommentReply } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import { commentCall } from './comment-calls.ts';
import {
  endReplyUnknown,
  replyAbandonedBefore,
  replyLookupHoldUntil,
  settleAbandonedReply,
} from './comment-reply.ts';
import { paceRead } from './read-pass.ts';

/** The most replies one pass settles (the rest wait for the next pass). */
export const REPLY_SWEEP_PASS_SIZE = 100;

export interface ReplySweepReport {
  /** Replies taken for a look-up. */
  claimed: number;
  /** Found on the platform: `sent`, stored as our comment. */
  sent: number;
  /** Not found, the look-up unanswered, or their connection or post gone: `outcome_unknown`. */
  outcomeUnknown: number;
  /** Left for a later pass: the connection's read budget is spent, or the worker is stopping. */
  postponed: number;
}

type Settled = Exclude<keyof ReplySweepReport, 'claimed'> | 'gone';

/** One held reply settled, or left for later. */
async function settleOne(
  deps: CoreDeps,
  reply: CommentReply,
  signal: AbortSignal,
): Promise<Settled> {
  const parent = await deps.repos.comments.findById(reply.commentId);
  // The comment was deleted, and its replies with it.
  if (!parent) return 'gone';
  const call = await commentCall(deps, parent);
  if (!call.ok) {
    await endReplyUnknown(deps, reply, `it could not be looked for: ${call.error.message}`);
    return 'outcomeUnknown';
  }
  if (!parent.sandbox) {
    const waitUntil = await paceRead(deps, call.value.connection, `reply:${reply.id}`);
    if (waitUntil) return 'postponed';
  }
  const result = await settleAbandonedReply(deps, parent, reply, call.value, signal);
  if (result.ok) return 'sent';
  // Stopped with the worker: left `sending`, taken again once its hold passes.
  return result.error.code === 'platform_unavailable' ? 'postponed' : 'outcomeUnknown';
}

/**
 * One pass: up to REPLY_SWEEP_PASS_SIZE abandoned replies, as many at a time as a read pass
 * reads connections (METRICS_READ_CONCURRENCY), each held while it is looked for.
 */
export async function settleAbandonedReplies(
  deps: CoreDeps,
  signal: AbortSignal = new AbortController().signal,
): Promise<ReplySweepReport> {
  const report: ReplySweepReport = { claimed: 0, sent: 0, outcomeUnknown: 0, postponed: 0 };
  const batch = Math.max(1, deps.settings.metricsReadConcurrency);
  while (report.claimed < REPLY_SWEEP_PASS_SIZE && !signal.aborted) {
    const now = deps.clock.now();
    const limit = Math.min(batch, REPLY_SWEEP_PASS_SIZE - report.claimed);
    const held = await deps.repos.comments.claimAbandonedReplies(
      replyAbandonedBefore(deps, now),
      now,
      limit,
      replyLookupHoldUntil(deps, now),
    );
    report.claimed += held.length;
    const outcomes = await Promise.all(held.map((reply) => settleOne(deps, reply, signal)));
    for (const outcome of outcomes) if (outcome !== 'gone') report[outcome] += 1;
    if (held.length < limit) break;
  }
  return report;
}
