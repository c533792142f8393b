import type { PublishedSoFar, PublishOutcome } from '@social-publisher/domain';
import { failedOutcome, PublishFailure } from './outcome.ts';

/** A follow-up of a thread, as the steps that send one take it. */
export type { ThreadPart } from '@social-publisher/domain';

/**
 * Runs what comes after the main post went out (follow-ups, a first comment). A failure there
 * ends the target failed, carrying what was published (`soFar()` at that moment): the ids are
 * stored and shown, and nothing already out is sent again. A wait (429), an expired connection
 * or an abort end the run as such: the ids are in the resume state, the next run goes on from
 * the next part.
 */
export async function afterMainPost(
  signal: AbortSignal,
  soFar: () => PublishedSoFar,
  body: () => Promise<PublishOutcome>,
): Promise<PublishOutcome> {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof PublishFailure) {
      if (error.outcome.kind !== 'failed') throw error;
      const outcome = { ...error.outcome, publishedSoFar: soFar() };
      throw new PublishFailure(outcome, { maybeSent: error.maybeSent });
    }
    if (!(error instanceof Error) || error.name === 'TokenRejected') throw error;
    // A bug in the adapter: like runPublish, not retried, but what went out is still kept.
    throw new PublishFailure({
      ...failedOutcome('adapter_error', error.message, false),
      publishedSoFar: soFar(),
    });
  }
}
