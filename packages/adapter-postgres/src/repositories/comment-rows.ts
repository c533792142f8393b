/** Rows of the comments tables as the domain sees them. */
import type { CommentReply, CommentTrack, StoredComment } from '@social-publisher/domain';
import type { Selectable } from 'kysely';
import type { CommentRepliesTable, CommentsTable, CommentTracksTable } from '../schema.ts';
import { readTrackFromRow } from './read-track-rows.ts';

export function commentTrackFromRow(row: Selectable<CommentTracksTable>): CommentTrack {
  return { ...readTrackFromRow(row), readAt: row.read_at };
}

/** A comment row with its parent's id (null when it answers the post or we lack the parent). */
export function commentFromRow(
  row: Selectable<CommentsTable> & { parent_id?: string | null },
): StoredComment {
  return {
    id: row.id,
    accountId: row.account_id,
    postId: row.post_id,
    targetId: row.target_id,
    socialAccountId: row.social_account_id,
    platform: row.platform,
    platformCommentId: row.platform_comment_id,
    parentPlatformId: row.parent_platform_id,
    parentId: row.parent_id ?? null,
    author: { id: row.author_id, name: row.author_name, handle: row.author_handle },
    text: row.text,
    createdAt: row.created_at,
    hidden: row.hidden,
    mine: row.mine,
    read: row.read,
    receivedAt: row.received_at,
    sandbox: row.sandbox,
  };
}

export function commentRow(comment: StoredComment): Selectable<CommentsTable> {
  return {
    id: comment.id,
    account_id: comment.accountId,
    post_id: comment.postId,
    target_id: comment.targetId,
    social_account_id: comment.socialAccountId,
    platform: comment.platform,
    platform_comment_id: comment.platformCommentId,
    parent_platform_id: comment.parentPlatformId,
    author_id: comment.author.id,
    author_name: comment.author.name,
    author_handle: comment.author.handle,
    text: comment.text,
    created_at: comment.createdAt,
    hidden: comment.hidden,
    mine: comment.mine,
    read: comment.read,
    received_at: comment.receivedAt,
    sandbox: comment.sandbox,
  };
}

export function replyFromRow(row: Selectable<CommentRepliesTable>): CommentReply {
  return {
    id: row.id,
    accountId: row.account_id,
    commentId: row.comment_id,
    idempotencyKey: row.idempotency_key,
    text: row.text,
    state: row.state,
    intentAt: row.intent_at,
    platformCommentId: row.platform_comment_id,
    replyCommentId: row.reply_comment_id,
    error: row.error,
  };
}
