// What every platform's remover shares: the deletes of one published target run as one body,
// and whatever the platform's api.ts mapper threw (the publisher's own refusals) becomes the
// removal's outcome, never an exception. A part already gone is the caller's `removed`.
import { errorMessage, type RemoveOutcome, type RemoveRequest } from '@social-publisher/domain';
import { AuthSession, type TokenRefresher } from './auth.ts';
import { PublishFailure, TokenRejected } from './outcome.ts';

/** A removal's outcome from what a delete threw. An abort is rethrown: the worker hands back. */
export function removalFailure(error: unknown, signal: AbortSignal): RemoveOutcome {
  if (signal.aborted) throw error;
  if (error instanceof TokenRejected) {
    return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof PublishFailure) {
    const outcome = error.outcome;
    if (outcome.kind === 'throttled' || outcome.kind === 'connection_expired') return outcome;
    if (outcome.kind === 'failed') {
      const { code, message, retryable } = outcome;
      return { kind: 'failed', code, message, retryable };
    }
  }
  // A bug in the adapter, not a platform answer: retrying does not fix it.
  return { kind: 'failed', code: 'adapter_error', message: errorMessage(error), retryable: false };
}

/**
 * The session of one removal: renews a refused token once through `refresher` when the worker
 * gave a way to keep the new tokens, else a refused token ends as `connection_expired`.
 */
export function removalSession(
  request: RemoveRequest,
  refresher: TokenRefresher | null,
  label: string,
): AuthSession {
  const { saveTokens } = request;
  if (!saveTokens) return new AuthSession({ ...request, saveTokens: async () => {} }, null, label);
  return new AuthSession({ ...request, saveTokens }, refresher, label);
}

/**
 * The parts of a published target in the order they come down: the follow-ups last first (a
 * reply never outlives what it answers by more than a call), the first comment, the main post.
 */
export function partsToRemove(request: RemoveRequest): string[] {
  return [
    ...[...request.threadPostIds].reverse(),
    ...(request.firstCommentId === null ? [] : [request.firstCommentId]),
    request.platformPostId,
  ];
}

/** Runs a removal; whatever it throws becomes its outcome. */
export async function runRemoval(
  signal: AbortSignal,
  body: () => Promise<void>,
): Promise<RemoveOutcome> {
  try {
    await body();
    return { kind: 'removed' };
  } catch (error) {
    return removalFailure(error, signal);
  }
}
