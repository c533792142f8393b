import type { IncomingHttpHeaders } from 'node:http';
import { parseRetryAfter } from '@social-publisher/domain';
import { header } from './http.ts';
import { PublishFailure } from './outcome.ts';

/** Never wait less than this after a "slow down", however soon the platform says it resets. */
const MIN_WAIT_MS = 1_000;

/**
 * When the platform lets this account call again, from its own headers: `Retry-After` (seconds
 * or an HTTP date, RFC 9110) or `x-rate-limit-reset` (X: epoch seconds). Without either,
 * `fallbackMs` from now (each platform knows its window). Jittered up to 10 % so the posts of
 * one account rate-limited together do not all come back in the same millisecond.
 */
export function retryAtFrom(
  headers: IncomingHttpHeaders,
  fallbackMs: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): Date {
  const named = namedResetTime(headers, now);
  const waitMs = Math.max(MIN_WAIT_MS, (named ?? now + fallbackMs) - now);
  return new Date(now + Math.round(waitMs * (1 + 0.1 * random())));
}

function namedResetTime(headers: IncomingHttpHeaders, now: number): number | undefined {
  const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), now);
  if (retryAfterMs !== null) return now + retryAfterMs;
  const reset = header(headers, 'x-rate-limit-reset')?.trim();
  if (reset !== undefined && /^\d+$/.test(reset)) return Number(reset) * 1_000;
  return undefined;
}

/** Ends the publish with a wait until `retryAt` (no attempt spent). */
export const throttled = (code: string, message: string, retryAt: Date): PublishFailure =>
  new PublishFailure({ kind: 'throttled', code, message, retryAt });
