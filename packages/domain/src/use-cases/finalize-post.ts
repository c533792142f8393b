import type { CoreDeps } from '../deps.ts';
import type { PostWithTargets } from '../model.ts';
import { outcomeData, postOutcome } from '../outcome.ts';
import type { JobMeta } from '../ports/index.ts';
import { enqueueDeliveries, pendingDeliveries } from './pending-deliveries.ts';

/**
 * Once every target is terminal: set the post's outcome and create its webhook deliveries in
 * one atomic storage call (`insertMany` with `onlyIf`: one statement on PostgreSQL), so a crash
 * never leaves an outcome without deliveries (or the reverse). The transition is conditional,
 * so of two jobs finishing the same post only one notifies: the deliveries are stored only by
 * the call whose transition applied. The webhooks are listed just before; one created or
 * disabled in that instant is treated as if it had changed just after the post finished.
 */
export async function finalizePost(
  deps: CoreDeps,
  post: PostWithTargets,
  meta: JobMeta = {},
): Promise<void> {
  const outcome = postOutcome(post.targets);
  const now = deps.clock.now();
  const { repos } = deps;
  const connections = [...new Set(post.targets.map((target) => target.socialAccountId))];
  const webhooks = await repos.webhooks.listActiveForEvent(
    post.accountId,
    outcome.event,
    connections,
  );
  const created = pendingDeliveries(
    deps,
    webhooks,
    {
      accountId: post.accountId,
      postId: post.id,
      event: outcome.event,
      data: outcomeData(outcome),
    },
    now,
  );
  const transition = {
    postId: post.id,
    from: ['publishing'] as const,
    to: outcome.status,
    at: now,
  };
  const applied =
    created.length === 0
      ? await repos.posts.transitionStatus(post.id, transition.from, transition.to, now)
      : await repos.deliveries.insertMany(created, transition);
  const deliveries = applied ? created : [];
  deps.logger.info(
    { postId: post.id, status: outcome.status, deliveries: deliveries.length },
    'post finished',
  );
  await enqueueDeliveries(
    deps,
    deliveries.map((delivery) => delivery.id),
    meta,
  );
}
