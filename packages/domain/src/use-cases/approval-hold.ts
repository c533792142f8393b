/**
 * Who is held by approval (docs/api.md#approval), and the approval events. Shared by the use
 * cases that create or edit posts and by approve/reject (approval.ts).
 */
import type { CoreDeps } from '../deps.ts';
import type { AccountContext, Post, PostTarget } from '../model.ts';
import { holdsPostsOf, mayApprove } from '../rules/approval-rules.ts';
import type { EventToStore } from './event-deliveries.ts';

/**
 * Whether the posts the caller creates or edits in `ctx` wait for approval. Owners and admins
 * (a personal account's owner, every team key) are never held: no storage read for them.
 */
export async function holdsPosts(
  deps: CoreDeps,
  ctx: Pick<AccountContext, 'accountId' | 'role'>,
): Promise<boolean> {
  if (mayApprove(ctx.role)) return false;
  return holdsPostsOf(await deps.repos.accounts.findAccountById(ctx.accountId), ctx.role);
}

/**
 * The same for a user who is not calling (a series occurrence the worker creates): their role in
 * the account as it is now; one who has left the team is held too.
 */
export async function holdsPostsBy(
  deps: CoreDeps,
  accountId: string,
  userId: string,
): Promise<boolean> {
  const account = await deps.repos.accounts.findAccountById(accountId);
  if (!holdsPostsOf(account, null)) return false;
  const membership = await deps.repos.accounts.findMembership(accountId, userId);
  return holdsPostsOf(account, membership?.role ?? null);
}

type ApprovalEvent = 'post.approval_requested' | 'post.approved' | 'post.rejected';

/** An approval event: who asked, approved or rejected (and why, for a rejection). */
export function approvalEvent(
  event: ApprovalEvent,
  post: Pick<Post, 'id' | 'accountId'> & { targets: readonly PostTarget[] },
  userId: string,
  reason?: string,
): EventToStore {
  return {
    event,
    accountId: post.accountId,
    postId: post.id,
    data: event === 'post.rejected' ? { user_id: userId, reason } : { user_id: userId },
    socialAccountIds: [...new Set(post.targets.map((target) => target.socialAccountId))],
  };
}
