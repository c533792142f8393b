// The retry and wait policies: the domain's publish job and both queue adapters (after a thrown
// handler) compute their delays with exponentialBackoff.
import { describe, expect, it } from 'vitest';
import {
  doublingDelay,
  exponentialBackoff,
  type JobResult,
  retryAfter,
  runJobAttempt,
  waitFor,
  withJitter,
} from '../src/index.ts';

const fixed = (value: number) => () => value;

describe('exponentialBackoff', () => {
  it('is full jitter under a ceiling that doubles each attempt up to the cap', () => {
    // random() = 1 (just under, in practice) gives the ceiling itself.
    expect([1, 2, 3, 4, 5, 6].map((n) => exponentialBackoff(n, 1_000, 10_000, fixed(1)))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
    expect(exponentialBackoff(3, 1_000, 10_000, fixed(0.5))).toBe(2_000);
    // Attempt 0 or below counts as the first.
    expect(exponentialBackoff(0, 1_000, 10_000, fixed(1))).toBe(1_000);
  });

  it('never goes below half the base, so a retry is never immediate', () => {
    expect(exponentialBackoff(1, 1_000, 10_000, fixed(0))).toBe(500);
    expect(exponentialBackoff(6, 1_000, 10_000, fixed(0.01))).toBe(500);
  });

  it('stays within [base/2, ceiling] with the default random source', () => {
    for (let i = 0; i < 200; i += 1) {
      const delay = exponentialBackoff(4, 40, 200, undefined);
      expect(delay).toBeGreaterThanOrEqual(20);
      expect(delay).toBeLessThanOrEqual(200);
    }
  });
});

describe('withJitter and retryAfter', () => {
  it('moves a delay by up to the fraction either way', () => {
    expect(withJitter(1_000, 0.2, fixed(0))).toBe(800);
    expect(withJitter(1_000, 0.2, fixed(1))).toBe(1_200);
    expect(withJitter(1_000, 0.2, fixed(0.5))).toBe(1_000);
  });

  it('rounds the delay and never makes it negative', () => {
    expect(retryAfter(-5, 'x')).toEqual({ kind: 'retry', delayMs: 0, reason: 'x' });
    expect(retryAfter(10.6, 'y')).toEqual({ kind: 'retry', delayMs: 11, reason: 'y' });
  });
});

describe('doublingDelay (reconnects, process restarts)', () => {
  it('starts at the first delay, doubles each step and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((step) => doublingDelay(step, 1_000, 30_000))).toEqual([
      1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000,
    ]);
  });
});

describe('runJobAttempt (the retry decision of both queue adapters)', () => {
  const policy = { maxAttempts: 3, retryBaseDelayMs: 100, retryMaxDelayMs: 1_000 };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const run = (result: () => Promise<JobResult>, attempt: number) =>
    runJobAttempt(result, attempt, policy, quiet, {});

  it('finishes a done job and honours a retry result', async () => {
    expect(await run(async () => ({ kind: 'done' }), 1)).toEqual({ kind: 'done' });
    expect(await run(async () => retryAfter(250, 'later'), 2)).toEqual({
      kind: 'again',
      delayMs: 250,
      spendsAttempt: true,
      reason: 'later',
    });
  });

  it('retries a thrown handler with backoff until the attempts are used up', async () => {
    const boom = async (): Promise<JobResult> => {
      throw new Error('boom');
    };
    const again = await run(boom, 1);
    expect(again).toMatchObject({ kind: 'again', spendsAttempt: true, reason: 'boom' });
    expect(again.kind === 'again' && again.delayMs).toBeGreaterThanOrEqual(50);
    const dropped = await run(boom, 3);
    expect(dropped.kind).toBe('dropped');
    expect(dropped.kind === 'dropped' && (dropped.error as Error).message).toBe('boom');
  });

  it('drops a retry asked on the last attempt, but not a wait (which spends none)', async () => {
    expect(await run(async () => retryAfter(10, 'x'), 3)).toEqual({ kind: 'dropped' });
    expect(await run(async () => waitFor(10, 'rate limit'), 3)).toEqual({
      kind: 'again',
      delayMs: 10,
      spendsAttempt: false,
      reason: 'rate limit',
    });
  });
});
