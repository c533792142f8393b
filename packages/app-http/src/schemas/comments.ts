/** The representation of comments (snake_case) and how the domain's values become it. */
import {
  COMMENTS_PAGE_DEFAULT_LIMIT,
  COMMENTS_STATES,
  type CommentTargetState,
  type CommentView,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { Nullable, PageCursor, PageLimit, Timestamp, Uuid } from './common.ts';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export const CommentSchema = Type.Object(
  {
    id: Uuid('The comment id here (POST /comments/{id}/replies, /hide, DELETE)'),
    post_id: Uuid(),
    target_id: Uuid('The post target it answers (post_targets[].id of GET /posts/{id})'),
    social_account_id: Uuid('The connection the target was published to'),
    platform: Type.String({ description: 'The platform name, as in POST /posts platforms' }),
    platform_comment_id: Type.String({ description: 'The id on the platform' }),
    parent_id: Nullable(
      Uuid('The comment it answers, when held here; null: it answers the post (or one not held)'),
    ),
    author: Type.Object({
      id: Type.String({ description: "The author's account id on the platform" }),
      name: Nullable(Type.String()),
      handle: Nullable(Type.String()),
    }),
    text: Type.String(),
    created_at: Timestamp('When it was written, as the platform says'),
    hidden: Type.Boolean(),
    mine: Type.Boolean({ description: "Written by the connection's own account (our replies)" }),
    read: Type.Boolean({ description: 'Marked read (POST /inbox/read); ours are read already' }),
    sandbox: Type.Boolean({ description: 'Made up under a sandbox target, never read' }),
    can: Type.Object(
      { reply: Type.Boolean(), hide: Type.Boolean(), delete: Type.Boolean() },
      { description: 'What its platform lets this connection do to it' },
    ),
  },
  { description: 'A comment under a published target' },
);

export const CommentTargetSchema = Type.Object(
  {
    target_id: Uuid(),
    platform: Type.String(),
    state: Type.Enum([...COMMENTS_STATES], {
      description:
        'pending: not read yet; fresh: the last read worked; stale: the last read failed (error says why); unsupported: the platform offers no comments to read here (TikTok, Pinterest); gone: the post no longer exists on the platform',
    }),
    read_at: Nullable(Timestamp('When its comments were last read; null: never')),
    next_refresh_at: Nullable(Timestamp('When the next read is due; null: none planned')),
    error: Nullable(Type.String()),
  },
  { description: "Where the reading of one target's comments stands" },
);

export const presentComment = (comment: CommentView) => ({
  id: comment.id,
  post_id: comment.postId,
  target_id: comment.targetId,
  social_account_id: comment.socialAccountId,
  platform: comment.platform,
  platform_comment_id: comment.platformCommentId,
  parent_id: comment.parentId,
  author: comment.author,
  text: comment.text,
  created_at: comment.createdAt.toISOString(),
  hidden: comment.hidden,
  mine: comment.mine,
  read: comment.read,
  sandbox: comment.sandbox,
  can: comment.can,
});

export const presentCommentTarget = (state: CommentTargetState) => ({
  target_id: state.targetId,
  platform: state.platform,
  state: state.state,
  read_at: iso(state.readAt),
  next_refresh_at: iso(state.nextRefreshAt),
  error: state.error,
});

/** The paging fields of the comment lists (GET /posts/:id/comments, GET /inbox). */
export const CommentPageFields = {
  cursor: Type.Optional(PageCursor()),
  limit: PageLimit(COMMENTS_PAGE_DEFAULT_LIMIT),
};

export const NextCursor = Nullable(
  Type.String({ description: 'The cursor of the next page, null on the last' }),
);
