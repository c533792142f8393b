/**
 * POST /posts/:id/unpublish: taking a published post down. The asked targets become `removing`
 * (or are marked `unpublish: unsupported` when their platform has no delete) in one unit of
 * work, and the post's unpublish job does the deletes. `post.unpublished` is sent once every
 * asked target has ended (closeUnpublish).
 */
import type { CoreDeps } from '../deps.ts';
import {
  type DomainError,
  notFound,
  type Problem,
  postNotPublished,
  validationFailed,
} from '../errors.ts';
import {
  type Actor,
  type PostTarget,
  type PostWithTargets,
  UNPUBLISHABLE_TARGET_STATUSES,
} from '../model.ts';
import type { JobMeta, Repositories } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { storeEvents } from './event-deliveries.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { getPost } from './posts.ts';
import { unpublishedEvent } from './unpublish-events.ts';

export interface UnpublishInput {
  /** The targets to take down; absent: every published one. */
  targetIds?: readonly string[];
}

/** May be asked (again): out on its platform, or already on its way down. */
const askable = (target: PostTarget): boolean =>
  UNPUBLISHABLE_TARGET_STATUSES.includes(target.status) || target.status === 'removing';

/** The asked targets, or what is wrong with the ask (each bad id named). */
function askedTargets(
  post: PostWithTargets,
  input: UnpublishInput,
): Result<PostTarget[], DomainError> {
  // Its publish run decides its outcome from its targets: taken down only once it has ended.
  if (post.status === 'publishing') {
    return err(postNotPublished('the post is still publishing: unpublish it once it has finished'));
  }
  if (input.targetIds === undefined) {
    const asked = post.targets.filter(askable);
    if (asked.length > 0) return ok(asked);
    return err(postNotPublished(`the post has no published target (it is ${post.status})`));
  }
  const byId = new Map(post.targets.map((target) => [target.id, target]));
  const problems: Problem[] = [];
  const asked: PostTarget[] = [];
  for (const [index, id] of [...new Set(input.targetIds)].entries()) {
    const target = byId.get(id);
    const field = `target_ids[${index}]`;
    if (!target) problems.push({ field, message: `${id} is not a target of this post` });
    else if (!askable(target)) {
      problems.push({ field, message: `${id} is not published (it is ${target.status})` });
    } else asked.push(target);
  }
  return problems.length > 0 ? err(validationFailed(problems)) : ok(asked);
}

/**
 * Stores the ask and, when nothing is left to delete (every asked target unsupported), closes
 * the request with its event: one unit of work. Returns the post and the deliveries to enqueue.
 */
async function storeAsk(
  deps: CoreDeps,
  repos: Repositories,
  post: PostWithTargets,
  asked: readonly PostTarget[],
): Promise<{ post: PostWithTargets | null; deliveries: string[] }> {
  const at = deps.clock.now();
  const unsupported = asked.filter((target) => !deps.platforms.remover(target.platform));
  const removable = asked.filter((target) => deps.platforms.remover(target.platform));
  const stored = await repos.posts.requestUnpublish({
    postId: post.id,
    removeTargetIds: removable.map((target) => target.id),
    unsupportedTargetIds: unsupported.map((target) => target.id),
    at,
  });
  const tally = stored ? await repos.posts.closeUnpublish(post.id, at) : null;
  const deliveries =
    stored && tally ? await storeEvents(deps, repos, [unpublishedEvent(stored, tally)]) : [];
  return { post: stored, deliveries };
}

/**
 * Asks for the post's published targets (or those named) to be taken down: `202` with the post
 * as stored after the ask. Asking again while they are `removing` changes nothing and adds no
 * second job (the queue keeps one per post).
 */
export async function unpublishPost(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  input: UnpublishInput,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const checked = askedTargets(found.value, input);
  if (!checked.ok) return checked;
  const stored = await deps.uow.run((repos) => storeAsk(deps, repos, found.value, checked.value));
  if (!stored.post) return err(notFound('post'));
  await enqueueDeliveries(deps, stored.deliveries, meta);
  if (stored.post.targets.some((target) => target.status === 'removing')) {
    try {
      await deps.queue.enqueueUnpublish(postId, null, meta);
    } catch (error) {
      // The ask is stored: the reconciler adds the job it finds missing.
      deps.logger.warn({ postId, err: String(error) }, 'enqueueing the unpublish job failed');
    }
  }
  return ok(stored.post);
}
