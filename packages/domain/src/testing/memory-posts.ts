import {
  type Post,
  type PostTarget,
  type PostWithTargets,
  STARTABLE_POST_STATUSES,
} from '../model.ts';
import type { PostPage, PostRepository } from '../ports/index.ts';
import { trackComments } from './memory-comments.ts';
import { trackMetrics } from './memory-metrics.ts';
import { memoryPostRetention } from './memory-post-retention.ts';
import { ConstraintError, copy, type MemoryStore } from './memory-store.ts';
import { memoryPostUnpublishing } from './memory-unpublish.ts';

const time = (date: Date | null): number => date?.getTime() ?? Number.NEGATIVE_INFINITY;

/** A lease with no expiry is treated as run out: nobody can prove they still hold it. */
const leaseRunOut = (target: PostTarget, now: Date): boolean =>
  target.leaseExpiresAt === null || target.leaseExpiresAt.getTime() <= now.getTime();

/**
 * The claim rule (pending -> publishing, or a run-out lease taken over), applied in place (the
 * caller copies).
 */
function claim(
  target: PostTarget,
  leaseExpiresAt: Date,
  now: Date,
  allowExpiredLease: boolean,
): { target: PostTarget; takenOver: boolean } | null {
  const takenOver = allowExpiredLease && target.status === 'publishing' && leaseRunOut(target, now);
  if (target.status !== 'pending' && !takenOver) return null;
  target.status = 'publishing';
  target.attempts += 1;
  target.leaseExpiresAt = new Date(leaseExpiresAt);
  target.updatedAt = new Date(now);
  return { target, takenOver };
}

/** The claim of one target, for tests (see StorageTesting.claimTarget). */
export function memoryClaimTarget(store: MemoryStore) {
  return async (
    targetId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<PostTarget | null> => {
    const target = store.tables.targets.get(targetId);
    const claimed = target ? claim(target, leaseExpiresAt, now, allowExpiredLease) : null;
    return claimed ? copy(claimed.target) : null;
  };
}

export function memoryPostRepository(store: MemoryStore): PostRepository {
  const posts = () => store.tables.posts;
  const targets = () => store.tables.targets;
  const targetsOf = (postId: string) => [...targets().values()].filter((t) => t.postId === postId);
  const withTargets = (post: Post): PostWithTargets =>
    copy({ ...post, targets: targetsOf(post.id) });
  const newestFirst = (a: Post, b: Post) =>
    b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

  /** Newest first, `page.before` excluded, at most `page.limit`. */
  const listWhere = (keep: (post: Post) => boolean, page?: PostPage) => {
    const before = page?.before;
    const sorted = [...posts().values()]
      .filter(
        (p) =>
          keep(p) &&
          (before === undefined ||
            newestFirst(p, { ...p, createdAt: before.createdAt, id: before.id }) > 0),
      )
      .sort(newestFirst);
    return (page ? sorted.slice(0, page.limit) : sorted).map(withTargets);
  };
  const cancelPending = (postId: string, at: Date) => {
    for (const target of targets().values()) {
      if (target.postId === postId && target.status === 'pending') {
        target.status = 'cancelled';
        target.updatedAt = new Date(at);
      }
    }
  };

  return {
    ...memoryPostUnpublishing(store),
    async insert(post) {
      const { targets: rows, ...plain } = post;
      for (const row of rows) {
        if (targets().has(row.id)) throw new ConstraintError(`duplicate target: ${row.id}`);
        if (row.postId !== post.id) throw new ConstraintError(`target ${row.id} of another post`);
      }
      store.insertUnique(posts(), post.id, plain, 'post');
      for (const row of rows) targets().set(row.id, copy(row));
    },
    async findById(id) {
      const post = posts().get(id);
      return post ? withTargets(post) : null;
    },
    async listByCreator(createdBy, accountIds, page, status) {
      return listWhere(
        (p) =>
          p.createdBy === createdBy &&
          accountIds.includes(p.accountId) &&
          (status === undefined || p.status === status),
        page,
      );
    },
    async listByStatus(accountIds, status, page) {
      return listWhere((p) => accountIds.includes(p.accountId) && p.status === status, page);
    },
    async decideApproval({ postId, to, rejectionReason, seenUpdatedAt, at }) {
      const post = posts().get(postId);
      if (post?.status !== 'pending_approval') return false;
      if (post.updatedAt.getTime() !== seenUpdatedAt.getTime()) return false;
      post.status = to;
      post.rejectionReason = rejectionReason;
      post.updatedAt = new Date(at);
      if (to === 'rejected') cancelPending(postId, at);
      return true;
    },
    async applyEdit(edit) {
      const post = posts().get(edit.postId);
      if (!post || !edit.from.includes(post.status)) return false;
      for (const row of edit.addTargets) {
        if (targets().has(row.id)) throw new ConstraintError(`duplicate target: ${row.id}`);
        if (row.postId !== post.id) throw new ConstraintError(`target ${row.id} of another post`);
      }
      post.content = edit.content;
      post.mediaUrls = copy(edit.mediaUrls);
      post.platformOptions = copy(edit.platformOptions);
      post.thread = copy(edit.thread);
      post.firstComment = edit.firstComment;
      post.scheduledAt = edit.scheduledAt === null ? null : new Date(edit.scheduledAt);
      post.status = edit.status;
      post.updatedAt = new Date(edit.at);
      for (const id of edit.removeTargetIds) {
        const target = targets().get(id);
        if (target?.postId === post.id && target.status === 'pending') targets().delete(id);
      }
      for (const row of edit.addTargets) targets().set(row.id, copy(row));
      return true;
    },
    async transitionStatus(id, from, to, at) {
      const post = posts().get(id);
      if (!post || !from.includes(post.status)) return false;
      post.status = to;
      post.updatedAt = new Date(at);
      return true;
    },
    async startPublish(postId, { now, startBefore, leaseExpiresAt }) {
      const post = posts().get(postId);
      if (!post) return null;
      const previousStatus = post.status;
      const due = post.scheduledAt === null || post.scheduledAt.getTime() <= startBefore.getTime();
      const started = STARTABLE_POST_STATUSES.includes(post.status) && due;
      const claims: Array<{ target: PostTarget; takenOver: boolean }> = [];
      if (started) {
        post.status = 'publishing';
        post.updatedAt = new Date(now);
        for (const target of targetsOf(postId)) {
          const claimed = claim(target, leaseExpiresAt, now, true);
          if (claimed) claims.push(copy(claimed));
        }
      }
      return { post: withTargets(post), started, previousStatus, claims };
    },
    async renewLease(targetId, leaseExpiresAt, at) {
      const target = targets().get(targetId);
      // A `removing` target is held only while claimed (a released one has no lease).
      const held =
        target?.status === 'publishing' ||
        (target?.status === 'removing' && target.leaseExpiresAt !== null);
      if (!target || !held) return false;
      target.leaseExpiresAt = new Date(leaseExpiresAt);
      target.updatedAt = new Date(at);
      return true;
    },
    async saveResumeState(targetId, state, leaseExpiresAt, at) {
      const target = targets().get(targetId);
      if (!target) return;
      target.resumeState = copy(state);
      if (target.status === 'publishing') target.leaseExpiresAt = new Date(leaseExpiresAt);
      target.updatedAt = new Date(at);
    },
    async releaseTarget(targetId, error, at) {
      const target = targets().get(targetId);
      if (target?.status !== 'publishing') return;
      target.status = 'pending';
      target.leaseExpiresAt = null;
      if (error) {
        target.errorCode = error.errorCode;
        target.errorMessage = error.errorMessage;
      }
      target.updatedAt = new Date(at);
    },
    async completeTarget(targetId, completion) {
      const target = targets().get(targetId);
      if (target?.status !== 'publishing') return null;
      target.status = completion.status;
      target.leaseExpiresAt = null;
      target.updatedAt = new Date(completion.at);
      if (completion.status === 'published') {
        target.platformPostId = completion.platformPostId;
        target.platformUrl = completion.platformUrl;
        target.threadPostIds = completion.threadPostIds ?? target.threadPostIds;
        target.firstCommentId = completion.firstCommentId ?? target.firstCommentId;
        target.publishedAt = new Date(completion.at);
        target.errorCode = null;
        target.errorMessage = null;
        target.retryable = null;
        if (completion.metricsDueAt) trackMetrics(store, target, completion.metricsDueAt);
        if (completion.commentsDueAt) trackComments(store, target, completion.commentsDueAt);
      } else {
        target.errorCode = completion.errorCode;
        target.errorMessage = completion.errorMessage;
        target.retryable = completion.retryable;
        const kept = completion.publishedSoFar;
        if (kept) {
          target.platformPostId = kept.platformPostId;
          target.platformUrl = kept.platformUrl;
          target.threadPostIds = kept.threadPostIds ?? target.threadPostIds;
          target.firstCommentId = kept.firstCommentId ?? target.firstCommentId;
        }
      }
      return copy(target);
    },
    async cancelPendingTargets(postId, at) {
      cancelPending(postId, at);
    },
    async findDuePosts(until, limit) {
      const due = (p: Post) => (p.scheduledAt ?? p.createdAt).getTime() <= until.getTime();
      return copy(
        [...posts().values()]
          .filter((p) => ['queued', 'scheduled', 'publishing'].includes(p.status) && due(p))
          .sort((a, b) => time(a.scheduledAt ?? a.createdAt) - time(b.scheduledAt ?? b.createdAt))
          .slice(0, limit),
      );
    },
    async findExpiredLeases(now, limit) {
      return copy(
        [...targets().values()]
          .filter((t) => t.status === 'publishing' && time(t.leaseExpiresAt) < now.getTime())
          .sort((a, b) => time(a.leaseExpiresAt) - time(b.leaseExpiresAt))
          .slice(0, limit),
      );
    },

    ...memoryPostRetention(store),
  };
}
