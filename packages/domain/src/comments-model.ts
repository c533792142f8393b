import type { Platform } from './model.ts';
import type { ReadTrack } from './read-track.ts';

/**
 * Where the reading of a target's comments stands: `pending` (not read yet), `fresh` (the last
 * read worked), `stale` (the last read failed, `error` says why), `unsupported` (the platform
 * offers no comments to read) or `gone` (the platform says the post no longer exists).
 */
export const COMMENTS_STATES = ['pending', 'fresh', 'stale', 'unsupported', 'gone'] as const;
export type CommentsState = (typeof COMMENTS_STATES)[number];

/**
 * One published target followed for its comments: created when the target publishes (beside its
 * metrics track), holding when the next read is due on COMMENTS_REFRESH_SCHEDULE.
 */
export interface CommentTrack extends ReadTrack<CommentsState> {
  /** When the comments were last read; null: never. */
  readAt: Date | null;
}

/** Who wrote a comment, as the platform names them. */
export interface CommentAuthor {
  /** The platform's id of the author's account. */
  id: string;
  name: string | null;
  handle: string | null;
}

/** A comment under a published target, stored once per (target, platform comment id). */
export interface StoredComment {
  id: string;
  accountId: string;
  postId: string;
  targetId: string;
  socialAccountId: string;
  platform: Platform;
  platformCommentId: string;
  /** The platform id of the comment it answers; null: it answers the post itself. */
  parentPlatformId: string | null;
  /** Our id of that comment when we hold it (filled when read back). */
  parentId: string | null;
  author: CommentAuthor;
  text: string;
  createdAt: Date;
  hidden: boolean;
  /** Written by the connection's own account (our replies among them). */
  mine: boolean;
  read: boolean;
  receivedAt: Date;
  /** Under a sandbox target: made up, never read from a platform (sandbox-comments.ts). */
  sandbox: boolean;
}

/**
 * Where a reply stands. `sending`: recorded before the platform call, its answer not known yet
 * (a request that died there leaves it so: a retry with its key, or the worker's sweep, looks
 * for it on the platform, never sending it again). `sent`: the platform's id is known. `failed`: the platform refused it (no
 * reply exists). `outcome_unknown`: it may have been posted, and looking for it found nothing
 * certain; it is never sent again.
 */
export const REPLY_STATES = ['sending', 'sent', 'failed', 'outcome_unknown'] as const;
export type ReplyState = (typeof REPLY_STATES)[number];

/**
 * A `sending` reply younger than this may still be on its way: its request is not over (the
 * default of REPLY_IN_FLIGHT_MS; each platform call of a reply gets half of it, at most 60 s).
 */
export const REPLY_IN_FLIGHT_MS = 120_000;

/** One reply asked for by POST /comments/:id/replies, keyed by its Idempotency-Key. */
export interface CommentReply {
  id: string;
  accountId: string;
  commentId: string;
  idempotencyKey: string;
  text: string;
  state: ReplyState;
  /** When the intent was recorded: a look-up on the platform searches from this time on. */
  intentAt: Date;
  platformCommentId: string | null;
  /** The reply as a stored comment, once sent. */
  replyCommentId: string | null;
  error: string | null;
}

/** What GET /inbox lists: one account's comments, newest first. */
export interface InboxQuery {
  accountId: string;
  platform?: Platform;
  unreadOnly?: boolean;
  limit: number;
  before?: { createdAt: Date; id: string };
}
