import {
  type CommentCallRefusal,
  errorMessage,
  outageOf,
  PaceDeferral,
  type PublishOutcome,
} from '@social-publisher/domain';

/**
 * Thrown inside an adapter to end the publish with `outcome` (a failure or connection_expired).
 * `runPublish` turns it back into the returned outcome; nothing outside this package sees it.
 */
export class PublishFailure extends Error {
  readonly outcome: PublishOutcome;
  /**
   * The request may have reached the platform and been acted on although no answer came (a
   * timeout or reset after it was sent). False for answers and for connections never made.
   */
  readonly maybeSent: boolean;
  constructor(outcome: PublishOutcome, options: { maybeSent?: boolean } = {}) {
    super(outcome.kind === 'published' ? 'published' : outcome.message);
    this.name = 'PublishFailure';
    this.outcome = outcome;
    this.maybeSent = options.maybeSent ?? false;
  }
}

/**
 * Thrown by an API call when the platform rejected the access token as expired or revoked
 * (each platform says it its own way, e.g. an invalid-token code or a 401). AuthSession refreshes once.
 */
export class TokenRejected extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TokenRejected';
    this.code = code;
  }
}

export type FailedOutcome = Extract<PublishOutcome, { kind: 'failed' }>;

export const failedOutcome = (
  code: string,
  message: string,
  retryable: boolean,
): FailedOutcome => ({
  kind: 'failed',
  code,
  message,
  retryable,
});

export const fail = (code: string, message: string, retryable: boolean): PublishFailure =>
  new PublishFailure(failedOutcome(code, message, retryable));

export const connectionExpired = (message: string): PublishFailure =>
  new PublishFailure({ kind: 'connection_expired', message });

/**
 * `body`'s result, or what `onError` makes of an error it throws. Two errors are rethrown
 * untouched, as they are not the platform's answer: any after an abort (shutdown, lost lease),
 * and an outage of the service's own database or Redis (recording an intent, saving progress or
 * tokens, pacing), which the worker waits out before the run goes on from what was recorded.
 */
export async function catchUnlessAborted<T>(
  signal: AbortSignal,
  body: () => Promise<T>,
  onError: (error: unknown) => T,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (notThePlatforms(signal, error)) throw error;
    return onError(error);
  }
}

/** Whether `error` is an abort's or the service's own outage, never a platform's answer. */
export function notThePlatforms(signal: AbortSignal, error: unknown): boolean {
  return signal.aborted || outageOf(error) !== undefined;
}

/**
 * Runs one publish/resume. Expected failures become outcomes; an abort (shutdown, lost lease)
 * and a pacing deferral are rethrown so the worker hands the target back untouched.
 */
export function runPublish(
  signal: AbortSignal,
  body: () => Promise<PublishOutcome>,
): Promise<PublishOutcome> {
  return catchUnlessAborted(signal, body, (error) => {
    // The connection is out of budget before the counted call: the worker makes the target wait.
    if (error instanceof PaceDeferral) throw error;
    if (error instanceof PublishFailure) return error.outcome;
    if (error instanceof TokenRejected) {
      return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
    }
    // A bug in the adapter, not a platform answer: retrying does not fix it.
    return failedOutcome('adapter_error', errorMessage(error), false);
  });
}

/**
 * An error thrown by a platform call as the refusal of a port that is not publishing (a comment
 * call, a removal): a refused token ends the connection, a "slow down" waits, anything else
 * fails with the platform's code and words (`where`, when given, after them). An adapter bug is
 * a failure not worth retrying.
 */
export function refusalOf(error: unknown, where?: string): CommentCallRefusal {
  const placed = (message: string) => (where ? `${message} (${where})` : message);
  if (error instanceof TokenRejected) {
    return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof PublishFailure) {
    const outcome = error.outcome;
    if (outcome.kind === 'throttled') {
      const { code, message, retryAt } = outcome;
      return { kind: 'throttled', code, message: placed(message), retryAt };
    }
    if (outcome.kind === 'connection_expired') {
      return { kind: 'connection_expired', message: outcome.message };
    }
    if (outcome.kind === 'failed') {
      const { code, message, retryable } = outcome;
      return { kind: 'failed', code, message: placed(message), retryable };
    }
  }
  return { kind: 'failed', code: 'adapter_error', message: errorMessage(error), retryable: false };
}
