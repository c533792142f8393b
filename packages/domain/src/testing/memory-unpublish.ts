import { type PostTarget, UNPUBLISHABLE_TARGET_STATUSES } from '../model.ts';
import type { PostUnpublishing, RemovalClaim } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

/** Unclaimed (no lease) or its claim has run out. */
const claimable = (target: PostTarget, now: Date): boolean =>
  target.leaseExpiresAt === null || target.leaseExpiresAt.getTime() <= now.getTime();

/** The unpublish side of the in-memory post repository (see PostUnpublishing). */
export function memoryPostUnpublishing(store: MemoryStore): PostUnpublishing {
  const targetsOf = (postId: string) =>
    [...store.tables.targets.values()].filter((target) => target.postId === postId);

  return {
    async requestUnpublish({ postId, removeTargetIds, unsupportedTargetIds, at }) {
      const post = store.tables.posts.get(postId);
      if (!post) return null;
      const requests = store.tables.unpublishRequests;
      const round = requests.get(postId) ?? new Date(at);
      requests.set(postId, round);
      for (const target of targetsOf(postId)) {
        if (removeTargetIds.includes(target.id)) {
          if (UNPUBLISHABLE_TARGET_STATUSES.includes(target.status)) {
            target.status = 'removing';
            target.leaseExpiresAt = null;
            target.errorCode = null;
            target.errorMessage = null;
            target.retryable = null;
            target.unpublish = null;
            target.updatedAt = new Date(at);
          }
          if (target.status === 'removing') store.tables.unpublishAsked.set(target.id, round);
        } else if (unsupportedTargetIds.includes(target.id) && target.status === 'published') {
          target.unpublish = 'unsupported';
          target.updatedAt = new Date(at);
          store.tables.unpublishAsked.set(target.id, round);
        }
      }
      // A request that ended up asking nothing (every target changed meanwhile) stays open
      // only until its job closes it: the same as PostgreSQL, which decides in one statement.
      return copy({ ...post, targets: targetsOf(postId) });
    },
    async claimRemovals(postId, { now, leaseExpiresAt }) {
      const claims: RemovalClaim[] = [];
      for (const target of targetsOf(postId)) {
        if (target.status !== 'removing' || !claimable(target, now)) continue;
        const takenOver = target.leaseExpiresAt !== null;
        target.leaseExpiresAt = new Date(leaseExpiresAt);
        target.updatedAt = new Date(now);
        claims.push({ target: copy(target), takenOver });
      }
      return claims;
    },
    async releaseRemoval(targetId, error, at) {
      const target = store.tables.targets.get(targetId);
      if (target?.status !== 'removing') return;
      target.leaseExpiresAt = null;
      if (error) {
        target.errorCode = error.errorCode;
        target.errorMessage = error.errorMessage;
      }
      target.updatedAt = new Date(at);
    },
    async completeRemoval(targetId, completion) {
      const target = store.tables.targets.get(targetId);
      if (target?.status !== 'removing') return null;
      target.status = completion.status;
      target.leaseExpiresAt = null;
      target.updatedAt = new Date(completion.at);
      if (completion.status === 'removed') {
        target.errorCode = null;
        target.errorMessage = null;
        target.retryable = null;
      } else {
        target.errorCode = completion.errorCode;
        target.errorMessage = completion.errorMessage;
        target.retryable = completion.retryable;
      }
      return copy(target);
    },
    async closeUnpublish(postId) {
      const round = store.tables.unpublishRequests.get(postId);
      if (round === undefined) return null;
      const targets = targetsOf(postId);
      if (targets.some((target) => target.status === 'removing')) return null;
      store.tables.unpublishRequests.delete(postId);
      const asked = targets.filter(
        (target) => store.tables.unpublishAsked.get(target.id)?.getTime() === round.getTime(),
      );
      return {
        removed: asked.filter((target) => target.status === 'removed').length,
        failed: asked.filter((target) => target.status === 'remove_failed').length,
        unsupported: asked.filter((target) => target.unpublish === 'unsupported').length,
        total: asked.length,
      };
    },
    async findOpenUnpublishes(limit) {
      return [...store.tables.unpublishRequests.entries()]
        .sort(([a, x], [b, y]) => x.getTime() - y.getTime() || (a < b ? -1 : 1))
        .slice(0, limit)
        .map(([postId]) => postId);
    },
  };
}
