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
