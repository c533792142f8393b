// What every platform's comments client shares: its calls written in the platform's terms and
// made the port's by commentsClient, the platform's refusals (what its api.ts mapper throws) as
// the port's outcomes, a "not there" answer as `gone`, and a call that got no answer after it
// may have been sent rethrown, so that the reply it carried is looked for, not resent.
import type {
  CommentCallRefusal,
  CommentRequest,
  CommentsListRequest,
  FindReplyRequest,
  PlatformComment,
  PlatformCommentsClient,
  ReplyRequest,
} from '@social-publisher/domain';
import { catchUnlessAborted, fail, PublishFailure, refusalOf } from './outcome.ts';

/** Clocks differ: a reply written this long before the attempt still counts as the attempt's. */
export const REPLY_CLOCK_SKEW_MS = 60_000;

/** Thrown by a comment call whose comment (or post) the platform says is not there. */
export class CommentGone extends Error {
  override name = 'CommentGone';
}

/**
 * Thrown when the platform gives no comments for this post and says why (a scope it grants few
 * apps, comments turned off): a list answers `unsupported`, any other call fails.
 */
export class CommentsUnsupported extends Error {
  override name = 'CommentsUnsupported';
}

/**
 * Runs one comment call: its result, `gone` for CommentGone, the refusal for anything the
 * platform said. With `sends` (a reply), a call that may have reached the platform without an
 * answer (a timeout, a reset) and an abort are rethrown: the caller cannot know what happened.
 */
export function commentCall<T>(
  signal: AbortSignal,
  body: () => Promise<T>,
  options: { sends?: boolean } = {},
): Promise<T | { kind: 'gone'; message: string } | CommentCallRefusal> {
  return catchUnlessAborted<T | { kind: 'gone'; message: string } | CommentCallRefusal>(
    signal,
    body,
    (error) => {
      if (error instanceof CommentGone) return { kind: 'gone', message: error.message };
      if (options.sends && error instanceof PublishFailure && error.maybeSent) throw error;
      return refusalOf(error);
    },
  );
}

/** A platform's comment calls in its own terms: commentsClient makes each the port's. */
export interface CommentCalls {
  readonly scopes?: readonly string[];
  replyMaxLength: PlatformCommentsClient['replyMaxLength'];
  can: PlatformCommentsClient['can'];
  cannot?: PlatformCommentsClient['cannot'];
  /** The post's comments, at most `limit` (CommentsUnsupported: the platform gives none). */
  list(request: CommentsListRequest): Promise<PlatformComment[]>;
  /** The reply as the platform took it. */
  reply(request: ReplyRequest): Promise<PlatformComment>;
  /** The reply an earlier attempt sent, when the platform shows it. */
  findReply(request: FindReplyRequest): Promise<PlatformComment | undefined>;
  /** Resolves once the comment is hidden (or shown again). */
  hide?(request: CommentRequest & { hidden: boolean }): Promise<unknown>;
  /** Resolves once the comment is deleted. */
  delete?(request: CommentRequest): Promise<unknown>;
}

/** The port's comments client of `calls`: each call run in commentCall, its result an outcome. */
export function commentsClient(calls: CommentCalls): PlatformCommentsClient {
  const { list, reply, findReply, hide, delete: remove, ...rules } = calls;
  const done = async (act: Promise<unknown>) => {
    await act;
    return { kind: 'done' as const };
  };
  return {
    ...rules,
    list: (request) =>
      commentCall(request.signal, async () => {
        try {
          return { kind: 'listed' as const, comments: await list(request) };
        } catch (error) {
          if (!(error instanceof CommentsUnsupported)) throw error;
          return { kind: 'unsupported' as const, message: error.message };
        }
      }),
    reply: (request) =>
      commentCall(
        request.signal,
        async () => ({ kind: 'sent' as const, comment: await reply(request) }),
        { sends: true },
      ),
    findReply: (request) =>
      commentCall(request.signal, async () => {
        const comment = await findReply(request);
        return comment ? { kind: 'found' as const, comment } : { kind: 'not_found' as const };
      }),
    ...(hide ? { hide: (request) => commentCall(request.signal, () => done(hide(request))) } : {}),
    ...(remove
      ? { delete: (request) => commentCall(request.signal, () => done(remove(request))) }
      : {}),
  };
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

/** The reply the platform took under `id` (ownReply); an answer without an id is invalid. */
export function sentReply(
  label: string,
  id: string | undefined,
  parentId: string,
  authorId: string,
  text: string,
): PlatformComment {
  if (!id) throw fail('invalid_response', `${label} reply gave no id`, false);
  return ownReply(id, parentId, authorId, text);
}

/** Among comments read back, the account's own with this text, written since the attempt. */
export function ownReplyAmong(
  comments: readonly (PlatformComment | null)[],
  text: string,
  since: Date,
): PlatformComment | undefined {
  const from = since.getTime() - REPLY_CLOCK_SKEW_MS;
  const found = comments.find((c) => c?.mine && c.text === text && c.createdAt.getTime() >= from);
  return found ?? undefined;
}

/**
 * A post found among the account's latest (`match`, by the network's comparison) as the reply
 * asked about: at its own time, or the attempt's when the platform gave none.
 */
export function recentAsReply(
  match: { id: string; createdAt: number } | undefined,
  request: Pick<FindReplyRequest, 'connection' | 'platformCommentId' | 'text' | 'since'>,
): PlatformComment | undefined {
  if (!match) return undefined;
  const { connection, platformCommentId, text, since } = request;
  const at = new Date(match.createdAt || since.getTime());
  return ownReply(match.id, platformCommentId, connection.externalId, text, at);
}
