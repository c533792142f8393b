import type { CommentAuthor } from '../comments-model.ts';
import type { PlatformData } from '../model.ts';
import type { PublishConnection } from './connection.ts';

/** One comment as the platform gave it. */
export interface PlatformComment {
  platformCommentId: string;
  /** The platform id of the comment it answers; null: it answers the post itself. */
  parentPlatformId: string | null;
  author: CommentAuthor;
  text: string;
  createdAt: Date;
  hidden: boolean;
  /** Written by the connection's own account. */
  mine: boolean;
}

/** What may be done to one comment on its platform (GET answers it as `can`). */
export interface CommentCapabilities {
  reply: boolean;
  hide: boolean;
  delete: boolean;
}

/** The comments of one published post. */
export interface CommentsListRequest {
  connection: PublishConnection;
  platformPostId: string;
  /** The comments created at or after this time are asked for (null: all of them). */
  since: Date | null;
  /** The most comments one read returns (the platform's pages are followed up to it). */
  limit: number;
  signal: AbortSignal;
}

/** A refusal every call can meet; `code` and `message` are the platform's own. */
export type CommentCallRefusal =
  | { kind: 'failed'; code: string; message: string; retryable: boolean }
  /** The token was refused: the connection is marked expired (`social_account.expired`). */
  | { kind: 'connection_expired'; message: string }
  /** The platform asked to slow down until `retryAt`. */
  | { kind: 'throttled'; code: string; message: string; retryAt: Date };

export type CommentsListOutcome =
  | { kind: 'listed'; comments: PlatformComment[] }
  /** The post no longer exists on the platform: reading stops. */
  | { kind: 'gone'; message: string }
  /** The platform does not give this post's comments (a missing scope...): says why. */
  | { kind: 'unsupported'; message: string }
  | CommentCallRefusal;

/** One comment of a published post to act on. */
export interface CommentRequest {
  connection: PublishConnection;
  platformPostId: string;
  platformCommentId: string;
  signal: AbortSignal;
}

export interface ReplyRequest extends CommentRequest {
  text: string;
  /** The same for every attempt of this reply: platforms that take one never post it twice. */
  idempotencyKey: string;
  /** When the reply was recorded, the same for every attempt (a record key may derive from it). */
  intentAt: Date;
}

/**
 * Looks for a reply an earlier attempt may have posted: ours, with this text, since then (or,
 * where the platform keys records by what the reply sent, by its key and intent time).
 */
export interface FindReplyRequest extends CommentRequest {
  text: string;
  since: Date;
  idempotencyKey: string;
}

export type ReplyOutcome =
  | { kind: 'sent'; comment: PlatformComment }
  /** The comment answered no longer exists on the platform. */
  | { kind: 'gone'; message: string }
  | CommentCallRefusal;

export type FindReplyOutcome =
  | { kind: 'found'; comment: PlatformComment }
  | { kind: 'not_found' }
  | { kind: 'gone'; message: string }
  | CommentCallRefusal;

export type CommentActionOutcome =
  | { kind: 'done' }
  /** The comment no longer exists on the platform. */
  | { kind: 'gone'; message: string }
  | CommentCallRefusal;

/** What a comment is, for deciding what may be done to it. */
export interface CommentFacts {
  mine: boolean;
  parentPlatformId: string | null;
}

/**
 * How one platform's comments are read and answered (its folder declares it beside its
 * publisher). A platform without one answers `unsupported` and `can` all false.
 */
export interface PlatformCommentsClient {
  /** The scopes reading and answering need (absent: those of publishing). */
  readonly scopes?: readonly string[];
  /** The longest reply in characters (code points) for a connection (an instance's own). */
  replyMaxLength(platformData: PlatformData | null): number;
  /** What may be done to a comment; a capability without its call is always false. */
  can(comment: CommentFacts): CommentCapabilities;
  /** Why a capability is false, for the 422 `unsupported` that a refused action answers. */
  cannot?(action: 'hide' | 'delete', comment: CommentFacts): string;
  list(request: CommentsListRequest): Promise<CommentsListOutcome>;
  reply(request: ReplyRequest): Promise<ReplyOutcome>;
  findReply(request: FindReplyRequest): Promise<FindReplyOutcome>;
  hide?(request: CommentRequest & { hidden: boolean }): Promise<CommentActionOutcome>;
  delete?(request: CommentRequest): Promise<CommentActionOutcome>;
}
