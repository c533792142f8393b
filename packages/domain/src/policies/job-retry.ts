import { errorMessage } from '../errors.ts';
import type { JobResult } from '../ports/queue.ts';
import type { Logger } from '../ports/system.ts';
import { exponentialBackoff } from './backoff.ts';

/**
 * A job that runs this much before its due time is early only by clock skew between the
 * process that scheduled it and the one running it: it runs instead of waiting again.
 */
export const EARLY_RUN_TOLERANCE_MS = 50;

/** How a queue retries a job whose handler threw, and how many attempts a job has. */
export interface JobRetryPolicy {
  maxAttempts: number;
  /** First backoff after a thrown handler; doubles each attempt, with jitter. */
  retryBaseDelayMs: number;
  /** Cap of that backoff. */
  retryMaxDelayMs: number;
}

/** What the queue does with a job after one run of its handler. */
export type JobStep =
  | { kind: 'done' }
  /** Its attempts are used up; `error` when the last run threw. */
  | { kind: 'dropped'; error?: unknown }
  /** Run it again after `delayMs`; a wait (rate limit) does not spend an attempt. */
  | { kind: 'again'; delayMs: number; spendsAttempt: boolean; reason: string };

/**
 * Runs one attempt of a job and decides what comes next, the same way in every queue adapter:
 * a thrown handler is retried with exponential backoff until the attempts are used up; a
 * `retry` result is honoured, except on the last attempt unless it spends none.
 */
export async function runJobAttempt(
  handler: () => Promise<JobResult>,
  attempt: number,
  policy: JobRetryPolicy,
  logger: Logger,
  log: object,
): Promise<JobStep> {
  let result: JobResult;
  try {
    result = await handler();
  } catch (error) {
    if (attempt >= policy.maxAttempts) {
      logger.error({ ...log, err: errorMessage(error) }, 'job failed on its last attempt; dropped');
      return { kind: 'dropped', error };
    }
    const delayMs = exponentialBackoff(attempt, policy.retryBaseDelayMs, policy.retryMaxDelayMs);
    logger.warn({ ...log, err: errorMessage(error), delayMs }, 'job failed; will retry');
    result = { kind: 'retry', delayMs, reason: errorMessage(error) };
  }
  if (result?.kind !== 'retry') return { kind: 'done' };
  const spendsAttempt = result.spendsAttempt !== false;
  if (spendsAttempt && attempt >= policy.maxAttempts) {
    logger.warn({ ...log, reason: result.reason }, 'retry asked on the last attempt; dropped');
    return { kind: 'dropped' };
  }
  const delayMs = Number.isFinite(result.delayMs) ? Math.max(0, result.delayMs) : 0;
  return { kind: 'again', delayMs, spendsAttempt, reason: result.reason };
}
