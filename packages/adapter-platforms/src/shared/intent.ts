import type { PublishIntent, PublishRequest } from '@social-publisher/domain';
import { type FailedOutcome, failedOutcome, PublishFailure, TokenRejected } from './outcome.ts';

/** The step a run recorded before a call that creates something, and when. */
export type { PublishIntent } from '@social-publisher/domain';

/**
 * Sends a call that creates something on the platform and cannot be repeated safely (no
 * idempotency key) under a durable intent: recorded before sending, ended by the caller's
 * `saveProgress` once the answer is stored, or here when the call failed in a way that proves
 * nothing was created (an error answer, a connection never made). A crash, an abort or a
 * timeout after sending leaves the intent: the next run looks for the result instead of
 * sending again.
 *
 * One such call per connection is in flight at a time in this process: a worker killed in the
 * middle then leaves at most one send per account unaccounted for (an `outcome_unknown` where
 * the platform offers no lookup), not one per concurrent job. Platforms allow one account far
 * fewer posts than this lets through (a few per minute at most).
 */
export async function sendOnce<T>(
  request: PublishRequest,
  step: string,
  call: () => Promise<T>,
): Promise<T> {
  return oneAtATime(request.connection.id, request.signal, async () => {
    await request.recordIntent(step);
    try {
      return await call();
    } catch (error) {
      if (!request.signal.aborted && nothingCreated(error)) await request.clearIntent();
      throw error;
    }
  });
}

/** The tail of each connection's chain of create calls in this process. */
const inFlight = new Map<string, Promise<unknown>>();

/** Runs `task` after every task queued before it for `key`; an abort stops the waiting. */
async function oneAtATime<T>(key: string, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
  const before = inFlight.get(key) ?? Promise.resolve();
  let release: () => void = () => {};
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = before.then(() => mine);
  inFlight.set(key, tail);
  try {
    await waitUnlessAborted(before, signal);
    return await task();
  } finally {
    release();
    if (inFlight.get(key) === tail) inFlight.delete(key);
  }
}

function waitUnlessAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
    );
  });
}

function nothingCreated(error: unknown): boolean {
  if (error instanceof TokenRejected) return true;
  return error instanceof PublishFailure && !error.maybeSent;
}

/**
 * The end of a target whose create call may have reached the platform, when the platform offers
 * no way to find out: never sent again, the user is told to look.
 */
export function outcomeUnknown(label: string, intent: PublishIntent): FailedOutcome {
  return failedOutcome(
    'outcome_unknown',
    `${label} may or may not have received this post: a worker stopped after sending it (step ${intent.step} at ${intent.at.toISOString()}) and before recording the answer, and ${label} offers no way to look it up. Check the account, and publish again only if it is not there`,
    false,
  );
}

/** Clock skew allowed between us and a platform when matching a post to its intent. */
export const INTENT_SKEW_MS = 5 * 60_000;

/** `outcome_unknown` for `intent`, saying why it could not be settled. */
export function unknownBecause(label: string, intent: PublishIntent, why: string): PublishFailure {
  const outcome = outcomeUnknown(label, intent);
  return new PublishFailure({ ...outcome, message: `${outcome.message} (${why})` });
}

/**
 * Reads what a lookup compares against (the account's latest posts) for a run that found an
 * intent. Refused for good (a permission the token lacks...): the outcome stays unknown, never
 * sent twice. Retryable failures, throttling and a rejected token end the run as they are: the
 * next attempt asks again.
 */
export async function readForLookup<T>(
  label: string,
  intent: PublishIntent,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof PublishFailure) || error.outcome.kind !== 'failed') throw error;
    if (error.outcome.retryable) throw error;
    throw unknownBecause(label, intent, `looking it up failed: ${error.outcome.message}`);
  }
}

/** The intent an earlier run left at `step` (it may have sent that call), else null. */
export function intentAt(request: PublishRequest, step: string): PublishIntent | null {
  return request.intent?.step === step ? request.intent : null;
}

/** What one platform's "was it already sent?" lookup compares. */
export interface SentLookup<T extends { createdAt: number }> {
  label: string;
  /** The intent the earlier run left (or the time its step began). */
  intent: PublishIntent;
  /**
   * The account's latest posts, newest first (`since`: the intent's time less INTENT_SKEW_MS,
   * for a platform that filters by time itself).
   */
  read(since: number): Promise<T[]>;
  /** Whether a post carries what the earlier run sent (its text as the platform shows it back). */
  same(candidate: T): boolean;
  /** Of several matches: `newest` (the first), or `closest` to the intent (the last). */
  pick: 'newest' | 'closest';
  /**
   * Set when a match would prove nothing (the text sent was empty: any text-less post since
   * could be it): the outcome stays unknown, for this reason.
   */
  ambiguous?: string | undefined;
}

/**
 * The post an earlier run sent, among the account's latest: one that `same` recognises, created
 * at or after its intent (less the clock skew we allow). undefined: nothing there, so it never
 * arrived and may be sent once. A lookup refused for good (a permission the token lacks) ends in
 * `outcome_unknown` (readForLookup); retryable failures, throttling and a rejected token end the
 * run as they are: the intent stays and the next attempt asks again.
 */
export async function findSent<T extends { createdAt: number }>(
  lookup: SentLookup<T>,
): Promise<T | undefined> {
  const { label, intent } = lookup;
  const since = intent.at.getTime() - INTENT_SKEW_MS;
  const recent = await readForLookup(label, intent, () => lookup.read(since));
  const matches = recent.filter(
    (candidate) => lookup.same(candidate) && candidate.createdAt >= since,
  );
  const match = lookup.pick === 'closest' ? matches.at(-1) : matches[0];
  if (match === undefined) return undefined;
  if (lookup.ambiguous !== undefined) throw unknownBecause(label, intent, lookup.ambiguous);
  return match;
}
