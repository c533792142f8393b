import type { PostTarget, PostWithTargets } from '../../model.ts';

/**
 * One unpublish request as `PostRepository.requestUnpublish` stores it. The targets were read
 * and checked by the caller; the statement re-checks each one's status, so a target that
 * changed meanwhile is left as it is.
 */
export interface UnpublishRequest {
  postId: string;
  /** Targets to take down: `published` or `remove_failed` ones become `removing` (unclaimed). */
  removeTargetIds: readonly string[];
  /** Targets whose platform has no delete: a `published` one is marked `unpublish: unsupported`. */
  unsupportedTargetIds: readonly string[];
  at: Date;
}

/** A removal's terminal result, as the unpublish job records it. */
export type RemovalCompletion =
  | { status: 'removed'; at: Date }
  | {
      status: 'remove_failed';
      errorCode: string;
      errorMessage: string;
      retryable: boolean;
      at: Date;
    };

/** The counts of `post.unpublished`, over every target asked in the request that ended. */
export interface UnpublishTally {
  removed: number;
  failed: number;
  unsupported: number;
  total: number;
}

/** A `removing` target claimed by `claimRemovals`; `takenOver` when its earlier claim had run out. */
export interface RemovalClaim {
  target: PostTarget;
  takenOver: boolean;
}

/** What `claimRemovals` asks: claims get a lease until `leaseExpiresAt`. */
export interface RemovalClaimRequest {
  now: Date;
  leaseExpiresAt: Date;
}

/**
 * The storage side of taking published posts down. An unpublish request is open from its first
 * ask until every target asked in it has ended: asks made while it is open join it (one
 * `post.unpublished` covers them all), an ask after it closed opens a new one.
 */
export interface PostUnpublishing {
  /**
   * Stores an unpublish request as one atomic statement: opens the post's request (or joins
   * the open one), moves the named targets on and counts them in the request (a `removing`
   * target named again just joins it). Returns the post after the call, or null when it does
   * not exist.
   */
  requestUnpublish(request: UnpublishRequest): Promise<PostWithTargets | null>;
  /**
   * Claims the post's `removing` targets that nobody holds (no lease, or a run-out one: taken
   * over), each by exactly one of any number of concurrent callers, in stored order.
   */
  claimRemovals(postId: string, request: RemovalClaimRequest): Promise<RemovalClaim[]>;
  /** Hands a claimed `removing` target back (lease cleared), with the error that delayed it. */
  releaseRemoval(
    targetId: string,
    error: { errorCode: string; errorMessage: string } | null,
    at: Date,
  ): Promise<void>;
  /**
   * Records a terminal result of a `removing` target. Returns the target as stored after it,
   * or null (nothing changed) when it was not `removing`.
   */
  completeRemoval(targetId: string, completion: RemovalCompletion): Promise<PostTarget | null>;
  /**
   * Closes the post's open request when none of its targets is `removing` any more, and returns
   * its counts; null when there is no open request, it still has a `removing` target, or
   * another caller closed it first (of any number of callers, exactly one gets the counts).
   */
  closeUnpublish(postId: string, at: Date): Promise<UnpublishTally | null>;
  /** Posts with an open unpublish request, oldest request first, at most `limit`. */
  findOpenUnpublishes(limit: number): Promise<string[]>;
}
