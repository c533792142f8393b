import type { JobResult } from '../ports/index.ts';

export const DONE: JobResult = { kind: 'done' };

export const retryAfter = (delayMs: number, reason: string): JobResult => ({
  kind: 'retry',
  delayMs: Math.max(0, Math.round(delayMs)),
  reason,
});

/** Runs the job again after `delayMs` without spending an attempt (a platform's rate limit). */
export const waitFor = (delayMs: number, reason: string): JobResult => ({
  kind: 'retry',
  delayMs: Math.max(0, Math.round(delayMs)),
  reason,
  spendsAttempt: false,
});

/**
 * Exponential backoff with full jitter (so failed jobs of many posts do not come back in
 * step), never below half the base so a retry is not an immediate hammering.
 */
export function exponentialBackoff(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(Math.max(baseMs / 2, random() * ceiling));
}

/** `ms` moved up or down by up to `fraction` of itself. */
export function withJitter(ms: number, fraction = 0.2, random: () => number = Math.random): number {
  return Math.round(ms * (1 - fraction + 2 * fraction * random()));
}
