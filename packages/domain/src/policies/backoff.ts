/**
 * Every retry and wait schedule of the service, as named strategies (as BullMQ names its
 * backoffs), so that a schedule is chosen by name and tuned in one place:
 * - `exponentialBackoff`: job retries after a failure (publish jobs, a thrown job handler).
 *   Full jitter, so the failed jobs of many posts do not come back in step.
 * - `doublingDelay`: reconnects and process restarts. One party waits, so no jitter: the
 *   schedule is predictable in logs.
 * - `withJitter`: a planned delay spread a little (webhook delivery schedule, outage waits).
 * A platform's or receiver's own `Retry-After` is read by `parseRetryAfter` (retry-after.ts).
 */

export type RandomSource = () => number;

/**
 * Delays before attempt 2, 3, ... of a webhook delivery: now, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h; 8 attempts over about a day, so a receiver down overnight still gets it.
 */
export const WEBHOOK_DELIVERY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
/** First retry delay of a publish job with transient failures, and its cap. */
export const PUBLISH_RETRY_BASE_MS = 2_000;
export const PUBLISH_RETRY_MAX_MS = 5 * 60_000;

/**
 * Exponential backoff with full jitter under a ceiling that doubles each attempt up to
 * `maxMs`, never below half the base so a retry is not an immediate hammering.
 */
export function exponentialBackoff(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: RandomSource = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(Math.max(baseMs / 2, random() * ceiling));
}

/** `firstMs` at step 1 (or below), doubling each step, capped at `maxMs`. */
export function doublingDelay(step: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, step - 1));
}

/** `ms` moved up or down by up to `fraction` of itself. */
export function withJitter(ms: number, fraction = 0.2, random: RandomSource = Math.random): number {
  return Math.round(ms * (1 - fraction + 2 * fraction * random()));
}
