/**
 * Approval (docs/api.md#approval): in a team that requires it, a member's post waits as
 * `pending_approval` (stored, never queued: no job, and neither the due scan nor a publish run
 * starts that status) until an owner or an admin other than its creator approves it (it is
 * scheduled or queued as asked) or rejects it (terminal). Every change is one conditional
 * statement on the post's status, so approve, reject, cancel, an edit and a worker racing each
 * other never lose the post nor publish a version nobody approved.
 */
import type { CoreDeps } from '../deps.ts';
import {
  conflict,
  type DomainError,
  forbidden,
  ownPost,
  postNotPending,
  validationFailed,
} from '../errors.ts';
import type { Actor, PostWithTargets } from '../model.ts';
import type { JobMeta } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { mayApprove, validateRejectionReason } from '../rules/approval-rules.ts';
import { canAccessAccount } from './access.ts';
import { approvalEvent } from './approval-hold.ts';
import { storeEvents } from './event-deliveries.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { enqueuePublishJob, getPost } from './posts.ts';

/** What a decision asks: approve, or reject with a reason. */
type Decision = { approve: true } | { approve: false; reason: string };

/** The checks every decision makes, then the conditional change and its event in one unit of work. */
async function decide(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  decision: Decision,
  meta: JobMeta,
): Promise<Result<PostWithTargets, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const post = found.value;
  const verb = decision.approve ? 'approve' : 'reject';
  if (!mayApprove(await canAccessAccount(deps, actor, post.accountId))) {
    return err(forbidden(`only an owner or an admin of the workspace may ${verb} posts`));
  }
  // Nothing to decide comes first: a personal account's post (never held) answers 409, not 403.
  if (post.status !== 'pending_approval') return err(notPending(post, verb));
  if (post.createdBy === actor.userId) {
    return err(ownPost(`you created this post: another owner or admin must ${verb} it`));
  }

  const now = deps.clock.now();
  const to = !decision.approve ? 'rejected' : post.scheduledAt === null ? 'queued' : 'scheduled';
  const reason = decision.approve ? null : decision.reason;
  const event = decision.approve
    ? approvalEvent('post.approved', post, actor.userId)
    : approvalEvent('post.rejected', post, actor.userId, decision.reason);
  const deliveries = await deps.uow.run(async (repos) => {
    const decided = await repos.posts.decideApproval({
      postId: post.id,
      to,
      rejectionReason: reason,
      seenUpdatedAt: post.updatedAt,
      at: now,
    });
    return decided ? storeEvents(deps, repos, [event]) : null;
  });
  const current = (await deps.repos.posts.findById(post.id)) ?? post;
  if (deliveries === null) {
    // Cancelled, decided or edited between the read above and the change: nothing was changed.
    return current.status === 'pending_approval'
      ? err(conflict(`the post was edited while you were deciding: read it again, then ${verb} it`))
      : err(notPending(current, verb));
  }
  await enqueueDeliveries(deps, deliveries, meta);
  // Its time may have passed while it waited: then it runs at once.
  if (decision.approve) await enqueuePublishJob(deps, current, meta);
  return ok(current);
}

const notPending = (post: PostWithTargets, verb: string): DomainError =>
  postNotPending(`only a post waiting for approval can be ${verb}d: this one is ${post.status}`);

/** POST /posts/:id/approve: scheduled (or queued, when immediate) as its creator asked. */
export const approvePost = (
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> =>
  decide(deps, actor, postId, { approve: true }, meta);

/** POST /posts/:id/reject: `rejected` for good, with the reason shown on the post. */
export async function rejectPost(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  input: { reason?: unknown },
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  const problems = validateRejectionReason(input.reason);
  if (problems.length > 0) return err(validationFailed(problems));
  const reason = String(input.reason).trim();
  return decide(deps, actor, postId, { approve: false, reason }, meta);
}
