import type { PublishIntent, PublishRequest } from '@social-publisher/domain';
import { type FailedOutcome, failedOutcome, PublishFailure, TokenRejected } from './outcome.ts';

/**
 * Sends a call that creates something on the platform and cannot be repeated safely (no
 * idempotency key) under a durable intent: recorded before sending, ended by the caller's
 * `saveProgress` once the answer is stored, or here when the call failed in a way that proves
 * nothing was created (an error answer, a connection never made). A crash, an abort or a
 * timeout after sending leaves the intent: the next run looks for the result instead of
 * sending again.
 */
export async function sendOnce<T>(
  request: PublishRequest,
  step: string,
  call: () => Promise<T>,
): Promise<T> {
  await request.recordIntent(step);
  try {
    return await call();
  } catch (error) {
    if (!request.signal.aborted && nothingCreated(error)) await request.clearIntent();
    throw error;
  }
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
