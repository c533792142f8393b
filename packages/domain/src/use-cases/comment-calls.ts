/**
 * What every action on one comment needs before it calls the platform (the comment's client,
 * its connection able to call, the post's id on the platform), and the platform's refusals as
 * the API's errors: a comment the platform deleted meanwhile is `comment_gone` (409, never a
 * retry), a refusal for good `platform_refused` (422), a platform that did not answer or asked
 * to wait `platform_unavailable` (503).
 */
import type { StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import { commentGone, conflict, type DomainError, platformRefused } from '../errors.ts';
import type { SocialAccount } from '../model.ts';
import type { CommentCallRefusal, CommentRequest, PlatformCommentsClient } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { clientOf } from './comments.ts';
import { expireConnection } from './connection-tokens.ts';
import { decryptConnection } from './publish-request.ts';
import { readableConnection } from './read-pass.ts';

export interface CommentCall {
  client: PlatformCommentsClient;
  connection: SocialAccount;
  /** The request naming the comment, without its signal. */
  request: Omit<CommentRequest, 'signal'>;
}

/** The client, connection and platform ids an action on `comment` calls with. */
export async function commentCall(
  deps: CoreDeps,
  comment: StoredComment,
): Promise<Result<CommentCall, DomainError>> {
  const client = clientOf(deps, comment);
  if (!client.ok) return client;
  const post = await deps.repos.posts.findById(comment.postId);
  const target = post?.targets.find((t) => t.id === comment.targetId);
  if (!target?.platformPostId) return err(commentGone('the post of this comment is gone'));
  const found = await deps.repos.socialAccounts.findByIds([comment.socialAccountId]);
  const readable = readableConnection(found[0] ?? null);
  if (!readable.ok) return err(conflict(readable.message));
  return ok({
    client: client.value,
    connection: readable.connection,
    request: {
      connection: decryptConnection(deps, readable.connection),
      platformPostId: target.platformPostId,
      platformCommentId: comment.platformCommentId,
    },
  });
}

/** A platform's refusal (or its "gone") as the API's error; an expired token expires the connection. */
export async function refusalError(
  deps: CoreDeps,
  connection: SocialAccount,
  outcome: CommentCallRefusal | { kind: 'gone'; message: string },
): Promise<DomainError> {
  switch (outcome.kind) {
    case 'gone':
      return commentGone(
        `the comment no longer exists on ${connection.platform}: ${outcome.message}`,
      );
    case 'connection_expired':
      await expireConnection(deps, connection, outcome.message);
      return conflict(`the social account's token was refused: reconnect it (${outcome.message})`);
    case 'throttled':
      return {
        code: 'platform_unavailable',
        message: `${connection.platform} asked to wait until ${outcome.retryAt.toISOString()}: ${outcome.message}`,
      };
    case 'failed':
      return outcome.retryable
        ? { code: 'platform_unavailable', message: `${outcome.code}: ${outcome.message}` }
        : platformRefused(`${outcome.code}: ${outcome.message}`);
  }
}
