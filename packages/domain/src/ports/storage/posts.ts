import type { Post, PostStatus, PostTarget, PostWithTargets, ResumeState } from '../../model.ts';

/** Outcome of one target as recorded by the publisher. */
export type TargetCompletion =
  | { status: 'published'; platformPostId: string; platformUrl: string | null; at: Date }
  | {
      status: 'failed';
      errorCode: string;
      errorMessage: string;
      retryable: boolean;
      at: Date;
    };

/** A post's conditional status change, as `PostRepository.transitionStatus` makes it. */
export interface PostTransition {
  postId: string;
  from: readonly PostStatus[];
  to: PostStatus;
  at: Date;
}

/** A target claimed by `claimTargets`; `takenOver` when it was `publishing` under a run-out lease. */
export interface TargetClaim {
  target: PostTarget;
  takenOver: boolean;
}

/** One page of `PostRepository.listByCreator`: `before` is the last post of the previous page. */
export interface PostPage {
  limit: number;
  before?: { createdAt: Date; id: string };
}

export interface PostRepository {
  /**
   * Inserts the post and its targets, atomically by itself (all or nothing, one statement), so
   * callers need no unit of work for it.
   */
  insert(post: PostWithTargets): Promise<void>;
  /** The post with its targets in their stored order (one query). */
  findById(id: string): Promise<PostWithTargets | null>;
  /**
   * Posts created by the user (optionally only in one account), newest first (created_at desc,
   * id desc), with targets. With `page`: at most `limit` posts, only those strictly after
   * `before` in that order (keyset pagination).
   */
  listByCreator(createdBy: string, accountId?: string, page?: PostPage): Promise<PostWithTargets[]>;
  /** Sets the status only when the current status is one of `from`. Returns whether it applied. */
  transitionStatus(
    id: string,
    from: readonly PostStatus[],
    to: PostStatus,
    at: Date,
  ): Promise<boolean>;
  /**
   * Claims every claimable target of the post at once, in one statement: `pending` ->
   * `publishing` (attempts + 1, lease set), or, when `allowExpiredLease`, also a `publishing`
   * target whose lease has run out. Each target is claimed by exactly one of any number of
   * concurrent callers. Returns the claimed targets in their stored order.
   */
  claimTargets(
    postId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<TargetClaim[]>;
  /** Extends the lease of a target this worker holds; false if it is no longer `publishing`. */
  renewLease(targetId: string, leaseExpiresAt: Date, at: Date): Promise<boolean>;
  /** Stores platform intermediate ids (and extends the lease) before the publisher waits. */
  saveResumeState(
    targetId: string,
    state: ResumeState,
    leaseExpiresAt: Date,
    at: Date,
  ): Promise<void>;
  /** Hands a claimed target back to `pending` (transient failure, shutdown). */
  releaseTarget(
    targetId: string,
    error: { errorCode: string; errorMessage: string } | null,
    at: Date,
  ): Promise<void>;
  /** Records a terminal result of a `publishing` target. Returns false if it was not publishing. */
  completeTarget(targetId: string, completion: TargetCompletion): Promise<boolean>;
  /** Marks every `pending` target of the post `cancelled`. */
  cancelPendingTargets(postId: string, at: Date): Promise<void>;
  /**
   * Posts that should be (or soon be) running: status `queued`, `scheduled` or `publishing`
   * with scheduledAt null or <= `until`. Ordered by coalesce(scheduledAt, createdAt), at most
   * `limit`. The reconciler passes now + a look-ahead so the in-process queue can be rebuilt
   * with delayed jobs after a restart.
   */
  findDuePosts(until: Date, limit: number): Promise<Post[]>;
  /** Targets in `publishing` whose lease expired before `now`. */
  findExpiredLeases(now: Date, limit: number): Promise<PostTarget[]>;
}
