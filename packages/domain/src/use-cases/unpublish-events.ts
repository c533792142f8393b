/**
 * `post.unpublished`: sent once every target asked in an unpublish request has ended, with the
 * request's counts. Closing the request and storing the event share one unit of work, and the
 * close is conditional: of the jobs (or asks) that see the request end, exactly one announces it.
 */
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { PostWithTargets } from '../model.ts';
import type { JobMeta, UnpublishTally } from '../ports/index.ts';
import { type EventToStore, storeEvents } from './event-deliveries.ts';
import { afterRead } from './metrics-reads.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';

export function unpublishedEvent(
  post: Pick<PostWithTargets, 'id' | 'accountId' | 'targets'>,
  tally: UnpublishTally,
): EventToStore {
  return {
    event: 'post.unpublished',
    accountId: post.accountId,
    postId: post.id,
    data: {
      removed: tally.removed,
      failed: tally.failed,
      unsupported: tally.unsupported,
      total: tally.total,
    },
    socialAccountIds: [...new Set(post.targets.map((target) => target.socialAccountId))],
  };
}

/**
 * Closes the post's unpublish request if nothing in it is still `removing`, and sends its event.
 * Returns whether this call closed it.
 */
export async function closeUnpublish(
  deps: CoreDeps,
  post: Pick<PostWithTargets, 'id' | 'accountId' | 'targets'>,
  meta: JobMeta = {},
): Promise<boolean> {
  const at = deps.clock.now();
  const closed = await deps.uow.run(async (repos) => {
    const tally = await repos.posts.closeUnpublish(post.id, at);
    if (!tally) return null;
    return { tally, deliveries: await storeEvents(deps, repos, [unpublishedEvent(post, tally)]) };
  });
  if (!closed) return false;
  deps.logger.info({ postId: post.id, ...closed.tally }, 'post unpublished');
  await enqueueDeliveries(deps, closed.deliveries, meta);
  return true;
}

/**
 * The numbers of the post's removed targets are no longer read: their tracks end `gone`, as a
 * read that found the post missing would leave them (sandbox tracks included, whose made-up
 * numbers would otherwise go on growing). A storage error is logged: the take-down stands.
 */
export async function stopReadingRemoved(
  deps: CoreDeps,
  post: Pick<PostWithTargets, 'id' | 'targets'>,
): Promise<void> {
  const removed = new Set(post.targets.filter((t) => t.status === 'removed').map((t) => t.id));
  if (removed.size === 0) return;
  try {
    const at = deps.clock.now();
    const tracks = (await deps.repos.metrics.listByPost(post.id)).filter(
      (track) => removed.has(track.targetId) && track.state !== 'gone',
    );
    if (tracks.length === 0) return;
    const gone = { kind: 'gone', message: 'the post was taken down (unpublished)' } as const;
    await deps.repos.metrics.record(tracks.map((track) => afterRead(deps, track, gone, at)));
  } catch (error) {
    deps.logger.warn({ postId: post.id, err: errorMessage(error) }, 'stopping metric reads failed');
  }
}
