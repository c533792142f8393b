import type { Post, PostStatus, PostTarget, PostWithTargets, ResumeState } from '../../model.ts';
import type { PublishedParts, PublishedSoFar } from '../platform.ts';
import type { PostUnpublishing } from './unpublish.ts';

/** Outcome of one target as recorded by the publisher. */
export type TargetCompletion =
  | ({
      status: 'published';
      platformPostId: string;
      platformUrl: string | null;
      at: Date;
      /**
       * When the first read of its numbers is due: the target's metrics track is created with
       * it, in the same statement (absent: not followed).
       */
      metricsDueAt?: Date;
      /** When the first read of its comments is due: its comment track starts with it. */
      commentsDueAt?: Date;
    } & PublishedParts)
  | {
      status: 'failed';
      errorCode: string;
      errorMessage: string;
      retryable: boolean;
      at: Date;
      /** The parts that did go out before the failure: stored with it, never lost. */
      publishedSoFar?: PublishedSoFar;
    };

/** A post's conditional status change, as `PostRepository.transitionStatus` makes it. */
export interface PostTransition {
  postId: string;
  from: readonly PostStatus[];
  to: PostStatus;
  at: Date;
}

/** A target claimed by `startPublish`; `takenOver` when it was `publishing` under a run-out lease. */
export interface TargetClaim {
  target: PostTarget;
  takenOver: boolean;
}

/** What a publish run asks of `startPublish`. */
export interface PublishStartRequest {
  now: Date;
  /** The post starts only when it is not scheduled after this (clock-skew tolerance). */
  startBefore: Date;
  /** Lease of the claimed targets. */
  leaseExpiresAt: Date;
}

/** What `startPublish` did to one post. */
export interface PublishStart {
  /**
   * The post after the call, targets in stored order: `publishing` (updatedAt = now) when it
   * started, as stored otherwise; claimed targets as claimed, the others as stored.
   */
  post: PostWithTargets;
  /** The post moved to (or stayed in) `publishing` by this call, and its targets were claimed. */
  started: boolean;
  /** The post's status before the call (`publishing` again: a resumed run). */
  previousStatus: PostStatus;
  /** The targets this call claimed, in stored order. */
  claims: TargetClaim[];
}

/** An edit of a post no worker has started (`PostRepository.applyEdit`). */
export interface PostEdit {
  postId: string;
  /** The edit applies only while the post's status is one of these. */
  from: readonly PostStatus[];
  content: string;
  mediaUrls: string[];
  platformOptions: PostWithTargets['platformOptions'];
  thread: PostWithTargets['thread'];
  firstComment: string | null;
  scheduledAt: Date | null;
  status: PostStatus;
  at: Date;
  /** Targets to delete (only `pending` ones are). */
  removeTargetIds: string[];
  /** New `pending` targets, stored after the post's existing ones. */
  addTargets: PostTarget[];
}

/** One page of `PostRepository.listByCreator`: `before` is the last post of the previous page. */
export interface PostPage {
  limit: number;
  before?: { createdAt: Date; id: string };
}

/**
 * An owner's or admin's decision on a post waiting for approval (`PostRepository.decideApproval`).
 * It applies only while the post is `pending_approval` and unchanged since `seenUpdatedAt` (the
 * version the approver was answered with), so an edit made meanwhile is never approved unseen.
 */
export interface ApprovalDecision {
  postId: string;
  /** `scheduled` or `queued` to approve it, `rejected` to turn it down. */
  to: Extract<PostStatus, 'scheduled' | 'queued' | 'rejected'>;
  /** Stored as `rejectionReason` (null when approving). */
  rejectionReason: string | null;
  seenUpdatedAt: Date;
  at: Date;
}

export interface PostRepository extends PostUnpublishing {
  /**
   * Inserts the post and its targets, atomically by itself (all or nothing, one statement), so
   * callers need no unit of work for it.
   */
  insert(post: PostWithTargets): Promise<void>;
  /** The post with its targets in their stored order (one query). */
  findById(id: string): Promise<PostWithTargets | null>;
  /**
   * Posts created by the user in any of `accountIds` (the accounts the caller may list: posts
   * the user created in any other account are left out; none when the list is empty), newest
   * first (created_at desc, id desc), with targets. With `page`: at most `limit` posts, only
   * those strictly after `before` in that order (keyset pagination).
   */
  listByCreator(
    createdBy: string,
    accountIds: readonly string[],
    page?: PostPage,
    status?: PostStatus,
  ): Promise<PostWithTargets[]>;
  /**
   * Posts of any creator in any of `accountIds` whose status is `status` (an approver's list of
   * what waits for approval), in the order and paging of `listByCreator`.
   */
  listByStatus(
    accountIds: readonly string[],
    status: PostStatus,
    page?: PostPage,
  ): Promise<PostWithTargets[]>;
  /**
   * Changes the post's fields, deletes and adds targets, as one atomic statement, only when the
   * post's status is one of `edit.from`; a publish run starting at the same moment
   * (`startPublish`) sees the post either before the edit or after it. Returns whether it applied.
   */
  applyEdit(edit: PostEdit): Promise<boolean>;
  /** Sets the status only when the current status is one of `from`. Returns whether it applied. */
  transitionStatus(
    id: string,
    from: readonly PostStatus[],
    to: PostStatus,
    at: Date,
  ): Promise<boolean>;
  /**
   * Records an approval decision as one conditional statement (see ApprovalDecision); a rejected
   * post's `pending` targets become `cancelled` in the same statement. Returns whether it applied.
   */
  decideApproval(decision: ApprovalDecision): Promise<boolean>;
  /**
   * The start of a publish run, as one atomic statement: when the post's status is one of
   * STARTABLE_POST_STATUSES and it is not scheduled after `startBefore`, it moves to
   * `publishing` and every claimable target is claimed: `pending` -> `publishing` (attempts +
   * 1, lease set), and a `publishing` target whose lease has run out (taken over). Each target
   * is claimed by exactly one of any number of concurrent callers; a post cancelled at the same
   * moment is either started or cancelled, never both. null when the post does not exist.
   */
  startPublish(postId: string, request: PublishStartRequest): Promise<PublishStart | null>;
  /**
   * Extends the lease of a target this worker holds; false if it is no longer `publishing` or
   * `removing` (a publish run and a removal share the lease column).
   */
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
  /**
   * Records a terminal result of a `publishing` target. Returns the target as stored after it,
   * or null (nothing changed) when it was not `publishing`.
   */
  completeTarget(targetId: string, completion: TargetCompletion): Promise<PostTarget | null>;
  /** Marks every `pending` target of the post `cancelled`. */
  cancelPendingTargets(postId: string, at: Date): Promise<void>;
  /**
   * Posts that should be (or soon be) running: status `queued`, `scheduled` or `publishing`
   * due by `until`: coalesce(scheduledAt, createdAt) <= `until` (a post without a time is due
   * from its creation). Ordered by coalesce(scheduledAt, createdAt), at most
   * `limit`. The reconciler passes now + a look-ahead so the in-process queue can be rebuilt
   * with delayed jobs after a restart.
   */
  findDuePosts(until: Date, limit: number): Promise<Post[]>;
  /** Targets in `publishing` whose lease expired before `now`. */
  findExpiredLeases(now: Date, limit: number): Promise<PostTarget[]>;
  /**
   * Deletes at most `limit` finished posts (in no set order): a terminal status
   * (TERMINAL_POST_STATUSES), last changed before `cutoff`, every target terminal too
   * (TERMINAL_TARGET_STATUSES). Their targets, deliveries, numbers and media links go with them.
   * Returns how many posts were deleted.
   */
  deleteFinishedBefore(cutoff: Date, limit: number): Promise<number>;
}
