/**
 * POST /comments/:id/hide and DELETE /comments/:id: moderation on the comment's platform, then
 * the same change here. Where the platform does not offer it for this comment (`can` says no),
 * `unsupported` with the platform's reason, and nothing is called.
 */
import type { StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import { type DomainError, unsupported } from '../errors.ts';
import type { Actor } from '../model.ts';
import type { PlatformCommentsClient } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { type CommentCall, commentCall, refusalError } from './comment-calls.ts';
import { type CommentView, findComment, viewOf } from './comments.ts';

const TIMEOUT_MS = 60_000;

type Moderation = 'hide' | 'delete';

const PAST_PARTICIPLE: Record<Moderation, string> = { hide: 'hidden', delete: 'deleted' };

interface ModerationCall<A extends Moderation> extends CommentCall {
  comment: StoredComment;
  /** The platform's `action`, bound to its client. */
  act: NonNullable<PlatformCommentsClient[A]>;
}

/** The comment and the platform's call that `action`s it, or why the platform does not offer it. */
async function moderationCall<A extends Moderation>(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
  action: A,
): Promise<Result<ModerationCall<A>, DomainError>> {
  const found = await findComment(deps, actor, commentId);
  if (!found.ok) return found;
  const comment = found.value;
  const call = await commentCall(deps, comment);
  if (!call.ok) return call;
  const { client } = call.value;
  const act = client[action];
  if (!act || !client.can(comment)[action]) {
    const reason =
      client.cannot?.(action, comment) ??
      `${comment.platform} comments cannot be ${PAST_PARTICIPLE[action]}`;
    return err(unsupported(reason));
  }
  return ok({ ...call.value, comment, act: act.bind(client) });
}

/** Hides (or shows again) a comment on its platform: the comment as it is now. */
export async function hideComment(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
  hidden: boolean,
): Promise<Result<CommentView, DomainError>> {
  const call = await moderationCall(deps, actor, commentId, 'hide');
  if (!call.ok) return call;
  const { comment, connection, request, act: hide } = call.value;
  if (comment.hidden === hidden) return ok(viewOf(deps, comment));
  const outcome = await hide({ ...request, hidden, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (outcome.kind !== 'done') return err(await refusalError(deps, connection, outcome));
  await deps.repos.comments.setHidden(comment.id, hidden);
  return ok(viewOf(deps, { ...comment, hidden }));
}

/** Deletes a comment on its platform (already gone there counts as deleted), then here. */
export async function deleteComment(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
): Promise<Result<null, DomainError>> {
  const call = await moderationCall(deps, actor, commentId, 'delete');
  if (!call.ok) return call;
  const { comment, connection, request, act: remove } = call.value;
  const outcome = await remove({ ...request, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (outcome.kind !== 'done' && outcome.kind !== 'gone') {
    return err(await refusalError(deps, connection, outcome));
  }
  await deps.repos.comments.delete(comment.id);
  return ok(null);
}
