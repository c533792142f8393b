import { setTimeout as sleep } from 'node:timers/promises';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from './outcome.ts';

export interface PollOptions<T> {
  /** Its pollIntervalMs between checks, its pollTimeoutMs as the bound (the same for all). */
  runtime: Pick<PublisherRuntime, 'pollIntervalMs' | 'pollTimeoutMs'>;
  /** When polling began (epoch ms); stored in the resume state so a resume keeps the same bound. */
  startedAt: number;
  signal: AbortSignal;
  /** What is awaited, for the platform_timeout message. */
  what: string;
  /** One status check: a value ends the polling, undefined polls again. */
  check: () => Promise<T | undefined>;
}

/**
 * Polls until `check` returns a value. Always checks at least once (a resume after a long outage
 * still looks before giving up); past `startedAt + runtime.pollTimeoutMs` the target fails with
 * `platform_timeout` (not retryable: it is the bound that keeps a target from staying pending
 * forever). Aborting `signal` rejects the wait, which the caller rethrows.
 */
export async function pollUntil<T>(options: PollOptions<T>): Promise<T> {
  const { pollIntervalMs: intervalMs, pollTimeoutMs: timeoutMs } = options.runtime;
  const deadline = options.startedAt + timeoutMs;
  for (;;) {
    const result = await options.check();
    if (result !== undefined) return result;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw fail(
        'platform_timeout',
        `${options.what} was still not finished ${Math.round(timeoutMs / 1000)} s after polling began`,
        false,
      );
    }
    await sleep(Math.min(intervalMs, left), undefined, { signal: options.signal });
  }
}
