import type {
  PublishedSoFar,
  PublishOutcome,
  PublishRequest,
  ThreadPart,
} from '@social-publisher/domain';
import { catchUnlessAborted, failedOutcome, PublishFailure } from './outcome.ts';

/** A follow-up of a thread, as the steps that send one take it. */
export type { ThreadPart } from '@social-publisher/domain';

/**
 * Runs what comes after the main post went out (follow-ups, a first comment). A failure there
 * ends the target failed, carrying what was published (`soFar()` at that moment): the ids are
 * stored and shown, and nothing already out is sent again. A wait (429), an expired connection
 * or an abort end the run as such: the ids are in the resume state, the next run goes on from
 * the next part.
 */
export function afterMainPost(
  signal: AbortSignal,
  soFar: () => PublishedSoFar,
  body: () => Promise<PublishOutcome>,
): Promise<PublishOutcome> {
  return catchUnlessAborted(signal, body, (error) => {
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
  });
}

/** The main post as published: its id and public URL. */
export interface MainPost {
  kind: 'published';
  platformPostId: string;
  platformUrl: string | null;
}

/**
 * Sends the thread's follow-ups still to send after the main post (`sent` holds the ids of those
 * sent before, and grows), storing the progress after each (`save`): a retry goes on from the
 * next part. `mainStored`: the stored progress already held the main post's id (else it is
 * stored first). `send` gets the part, its index and the id of the message before it.
 */
export async function sendFollowUps(
  request: PublishRequest,
  main: MainPost,
  progress: { sent: string[]; mainStored: boolean; save(): Promise<void> },
  send: (part: ThreadPart, index: number, previousId: string) => Promise<string>,
): Promise<PublishOutcome> {
  const thread = request.post.thread;
  if (thread.length === 0) return main;
  const { sent, save } = progress;
  if (!progress.mainStored) await save();
  const soFar = () => ({ ...main, threadPostIds: [...sent] });
  return afterMainPost(request.signal, soFar, async () => {
    for (let index = sent.length; index < thread.length; index++) {
      const part = thread[index] as ThreadPart;
      sent.push(await send(part, index, sent[index - 1] ?? main.platformPostId));
      await save();
    }
    return soFar();
  });
}
