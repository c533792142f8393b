import { errorMessage, PaceDeferral, type PublishOutcome } from '@social-publisher/domain';

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
 * Runs one publish/resume. Expected failures become outcomes; an abort (shutdown, lost lease)
 * and a pacing deferral are rethrown so the worker hands the target back untouched.
 */
export async function runPublish(
  signal: AbortSignal,
  body: () => Promise<PublishOutcome>,
): Promise<PublishOutcome> {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted) throw error;
    // The connection is out of budget before the counted call: the worker makes the target wait.
    if (error instanceof PaceDeferral) throw error;
    if (error instanceof PublishFailure) return error.outcome;
    if (error instanceof TokenRejected) {
      return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
    }
    // A bug in the adapter, not a platform answer: retrying does not fix it.
    const message = errorMessage(error);
    return failedOutcome('adapter_error', message, false);
  }
}
