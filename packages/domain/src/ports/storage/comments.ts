import type {
  CommentReply,
  CommentsState,
  CommentTrack,
  InboxQuery,
  ReplyState,
  StoredComment,
} from '../../comments-model.ts';
import type { TrackPostponement } from './metrics.ts';

/** What one read of a target's comments (or a refusal to read) changes on its track. */
export interface CommentTrackUpdate {
  targetId: string;
  state: CommentsState;
  step: number;
  dueAt: Date | null;
  error: string | null;
  /** Set when the comments were read. */
  readAt?: Date;
}

/** A page of comments newest first (created_at desc, id desc), after `before`. */
export interface CommentPage {
  limit: number;
  before?: { createdAt: Date; id: string };
}

/** How a reply ended: its state, and the platform's id and our comment when it was sent. */
export interface ReplyEnd {
  state: Exclude<ReplyState, 'sending'>;
  platformCommentId?: string | null;
  replyCommentId?: string | null;
  error?: string | null;
}

/**
 * The comments under published targets: a read schedule per target (created with the target's
 * publication, `PostRepository.completeTarget` with `commentsDueAt`), the comments themselves,
 * and the replies asked for, each recorded before it is sent.
 */
export interface CommentsRepository {
  /** Up to `limit` due tracks, leased until `leaseUntil` in the same statement (see metrics). */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<CommentTrack[]>;
  record(updates: readonly CommentTrackUpdate[]): Promise<void>;
  postpone(postponements: readonly TrackPostponement[]): Promise<void>;
  /** The tracks of a post's targets (ordered by target id). */
  tracksOfPost(postId: string): Promise<CommentTrack[]>;
  /**
   * Makes due now every track of the post not gone, not read after `readBefore` and not already
   * due (an `unsupported` one too: a connection made again may hold the scope now).
   */
  requestRefresh(postId: string, now: Date, readBefore: Date): Promise<number>;
  /**
   * Stores the comments not stored yet (by target and platform comment id) and returns those
   * it stored: only they are new. One statement: two readers of the same comment store it once.
   */
  insertNew(comments: readonly StoredComment[]): Promise<StoredComment[]>;
  findById(id: string): Promise<StoredComment | null>;
  /** The comment of a target by its platform id. */
  findByPlatformId(targetId: string, platformCommentId: string): Promise<StoredComment | null>;
  /** A post's comments (of one target when `targetId` is given), newest first. */
  listByPost(postId: string, targetId: string | null, page: CommentPage): Promise<StoredComment[]>;
  inbox(query: InboxQuery): Promise<StoredComment[]>;
  /** Marks read those of `ids` that belong to `accountId`: how many changed. */
  markRead(accountId: string, ids: readonly string[]): Promise<number>;
  setHidden(id: string, hidden: boolean): Promise<void>;
  /** Deletes the comment (the platform deleted it), and the replies asked for under it. */
  delete(id: string): Promise<void>;
  /**
   * Records a reply's intent unless the account already has one with that key: returns the
   * stored reply and whether it was created now.
   */
  createReply(reply: CommentReply): Promise<{ reply: CommentReply; created: boolean }>;
  findReply(accountId: string, idempotencyKey: string): Promise<CommentReply | null>;
  /** Ends a `sending` reply; false when it was not `sending` any more. */
  endReply(id: string, end: ReplyEnd): Promise<boolean>;
  /**
   * A `failed` reply (the platform refused it: nothing was posted) asked again with its key:
   * `sending` again from `intentAt`. False when it was not `failed` (someone else restarted it).
   */
  restartReply(id: string, intentAt: Date): Promise<boolean>;
  /**
   * Up to `limit` `sending` replies recorded before `intentBefore` that no look-up holds at
   * `now`, oldest intent first, each held for its look-up until `holdUntil` in the same
   * statement: two workers never take the same one. A holder that dies lets it go at
   * `holdUntil`.
   */
  claimAbandonedReplies(
    intentBefore: Date,
    now: Date,
    limit: number,
    holdUntil: Date,
  ): Promise<CommentReply[]>;
  /**
   * The same hold on one reply (a retry with its key): false when it is not `sending`, was
   * recorded at or after `intentBefore`, or another look-up holds it.
   */
  claimReplyLookup(id: string, intentBefore: Date, now: Date, holdUntil: Date): Promise<boolean>;
}
