// What every platform's comments client shares: the platform's refusals (what its api.ts mapper
// throws) as the port's outcomes, a "not there" answer as `gone`, and a call that got no answer
// after it may have been sent rethrown, so that the reply it carried is looked for, not resent.
import type { CommentCallRefusal, PlatformComment } from '@social-publisher/domain';
import { errorMessage } from '@social-publisher/domain';
import { PublishFailure, TokenRejected } from './outcome.ts';

/** Thrown by a comment call whose comment (or post) the platform says is not there. */
export class CommentGone extends Error {
  override name = 'CommentGone';
}

/** An error thrown by a call as the port's refusal. An adapter bug is a failure not retried. */
export function commentRefusal(error: unknown): CommentCallRefusal {
  if (error instanceof TokenRejected) {
    return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof PublishFailure) {
    const outcome = error.outcome;
    if (outcome.kind === 'throttled') {
      const { code, message, retryAt } = outcome;
      return { kind: 'throttled', code, message, retryAt };
    }
    if (outcome.kind === 'connection_expired') {
      return { kind: 'connection_expired', message: outcome.message };
    }
    if (outcome.kind === 'failed') {
      const { code, message, retryable } = outcome;
      return { kind: 'failed', code, message, retryable };
    }
  }
  return { kind: 'failed', code: 'adapter_error', message: errorMessage(error), retryable: false };
}

/**
 * Runs one comment call: its result, `gone` for CommentGone, the refusal for anything the
 * platform said. With `sends` (a reply), a call that may have reached the platform without an
 * answer (a timeout, a reset) and an abort are rethrown: the caller cannot know what happened.
 */
export async function commentCall<T>(
  signal: AbortSignal,
  body: () => Promise<T>,
  options: { sends?: boolean } = {},
): Promise<T | { kind: 'gone'; message: string } | CommentCallRefusal> {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof CommentGone) return { kind: 'gone', message: error.message };
    if (options.sends && error instanceof PublishFailure && error.maybeSent) throw error;
    return commentRefusal(error);
  }
}

/** The account's own comment as the platform took it: a reply to `parentId`, never hidden. */
export function ownReply(
  platformCommentId: string,
  parentId: string,
  authorId: string,
  text: string,
  createdAt: Date = new Date(),
): PlatformComment {
  return {
    platformCommentId,
    parentPlatformId: parentId,
    author: { id: authorId, name: null, handle: null },
    text,
    createdAt,
    hidden: false,
    mine: true,
  };
}
