/**
 * POST /comments/:id/hide and DELETE /comments/:id: moderation on the comment's platform, then
 * the same change here. Where the platform does not offer it for this comment (`can` says no),
 * `unsupported` with the platform's reason, and nothing is called.
 */
import type { CoreDeps } from '../deps.ts';
import { type DomainError, unsupported } from '../errors.ts';
import type { Actor } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { commentCall, refusalError } from './comment-calls.ts';
import { type CommentView, findComment, viewOf } from './comments.ts';

const TIMEOUT_MS = 60_000;

/** Hides (or shows again) a comment on its platform: the comment as it is now. */
export async function hideComment(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
  hidden: boolean,
): Promise<Result<CommentView, DomainError>> {
  const found = await findComment(deps, actor, commentId);
  if (!found.ok) return found;
  const comment = found.value;
  const call = await commentCall(deps, comment);
  if (!call.ok) return call;
  const { client, connection, request } = call.value;
  if (!client.hide || !client.can(comment).hide) {
    const reason =
      client.cannot?.('hide', comment) ?? `${comment.platform} comments cannot be hidden`;
    return err(unsupported(reason));
  }
  if (comment.hidden === hidden) return ok(viewOf(deps, comment));
  const outcome = await client.hide({
    ...request,
    hidden,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
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
  const found = await findComment(deps, actor, commentId);
  if (!found.ok) return found;
  const comment = found.value;
  const call = await commentCall(deps, comment);
  if (!call.ok) return call;
  const { client, connection, request } = call.value;
  if (!client.delete || !client.can(comment).delete) {
    const reason =
      client.cannot?.('delete', comment) ?? `${comment.platform} comments cannot be deleted`;
    return err(unsupported(reason));
  }
  const outcome = await client.delete({ ...request, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (outcome.kind !== 'done' && outcome.kind !== 'gone') {
    return err(await refusalError(deps, connection, outcome));
  }
  await deps.repos.comments.delete(comment.id);
  return ok(null);
}
