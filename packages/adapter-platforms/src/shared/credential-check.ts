// What a credentials check (connect by credentials) answers when the platform never answered:
// a network failure or a timeout is transient, and its words never carry the secret checked.
import { type CredentialsOutcome, errorMessage } from '@social-publisher/domain';
import { PublishFailure } from './outcome.ts';

/** The outcome of a check that got no answer; `mask` hides the secret in the message. */
export function unansweredCheck(
  error: unknown,
  mask: (text: string) => string,
): CredentialsOutcome {
  const message =
    error instanceof PublishFailure && error.outcome.kind === 'failed'
      ? error.outcome.message
      : errorMessage(error);
  return { ok: false, error: { code: 'network_error', message: mask(message), transient: true } };
}
