/** The post representation (snake_case) and how a domain post becomes it. */
import {
  POST_STATUSES,
  type PostTarget,
  type PostWithTargets,
  TARGET_STATUSES,
} from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export const PostTargetSchema = Type.Object(
  {
    id: Uuid(),
    platform: Type.String({ description: 'The platform name, as in POST /posts platforms' }),
    social_account_id: Uuid('The connection published to'),
    sandbox: Type.Boolean({ description: 'A sandbox target never reaches the platform' }),
    status: Type.Enum([...TARGET_STATUSES], {
      description:
        'pending -> publishing -> published | failed, or cancelled; once published, POST /posts/:id/unpublish: removing -> removed | remove_failed',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    error_code: Nullable(Type.String({ description: "The platform's error code, verbatim" })),
    error_message: Nullable(Type.String()),
    retryable: Nullable(Type.Boolean()),
    platform_post_id: Nullable(Type.String()),
    platform_url: Nullable(Type.String()),
    thread_post_ids: Type.Array(Type.String(), {
      description:
        'Ids of the follow-ups published, in order (kept when a later one failed: never re-posted)',
    }),
    first_comment_id: Nullable(
      Type.String({ description: 'Id of the first comment, once posted' }),
    ),
    published_at: Nullable(Timestamp()),
    unpublish: Nullable(
      Type.Enum(['unsupported'], {
        description:
          'unsupported: asked to be taken down, but its platform offers no delete (the target stays published); null otherwise',
      }),
    ),
    updated_at: Timestamp(),
  },
  { description: 'One destination of a post, with its own status and error details' },
);

export const PlatformOptionsSchema = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.Unknown()),
  { description: 'Per-platform options keyed by platform name' },
);

export const PostSchema = Type.Object({
  id: Uuid(),
  account_id: Uuid('The account (personal or team) that owns the post'),
  created_by: Uuid('The user who created it'),
  content: Type.String(),
  media_urls: Type.Array(Type.String()),
  platform_options: PlatformOptionsSchema,
  thread: Type.Array(
    Type.Object({ content: Type.String(), media_urls: Type.Array(Type.String()) }),
    { description: 'Follow-ups published as replies after the main post' },
  ),
  first_comment: Nullable(Type.String()),
  scheduled_at: Nullable(Timestamp('null for an immediate post')),
  status: Type.Enum([...POST_STATUSES], {
    description:
      'scheduled | queued -> publishing -> published | partial | failed; scheduled | queued -> cancelled; pending_approval -> scheduled | queued (approved) | rejected | cancelled',
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  sandbox: Type.Boolean({
    description: 'Every target is a sandbox one: nothing of this post reaches a platform',
  }),
  post_targets: Type.Array(PostTargetSchema),
  series_id: Nullable(
    Uuid('The repeating series (GET /post-series/:id) this post is an occurrence of'),
  ),
  rejection_reason: Nullable(
    Type.String({ description: 'Why an owner or an admin rejected it (status rejected)' }),
  ),
});

export type PostJson = Static<typeof PostSchema>;

function presentTarget(target: PostTarget): Static<typeof PostTargetSchema> {
  return {
    id: target.id,
    platform: target.platform,
    social_account_id: target.socialAccountId,
    sandbox: target.sandbox,
    status: target.status,
    attempts: target.attempts,
    error_code: target.errorCode,
    error_message: target.errorMessage,
    retryable: target.retryable,
    platform_post_id: target.platformPostId,
    platform_url: target.platformUrl,
    thread_post_ids: target.threadPostIds,
    first_comment_id: target.firstCommentId,
    published_at: iso(target.publishedAt),
    unpublish: target.unpublish,
    updated_at: target.updatedAt.toISOString(),
  };
}

/** Never includes resume_state or leases: those are the worker's business. */
export function presentPost(post: PostWithTargets): PostJson {
  return {
    id: post.id,
    account_id: post.accountId,
    created_by: post.createdBy,
    content: post.content,
    media_urls: post.mediaUrls,
    platform_options: post.platformOptions as Record<string, Record<string, unknown>>,
    thread: post.thread.map((part) => ({ content: part.content, media_urls: part.mediaUrls })),
    first_comment: post.firstComment,
    scheduled_at: iso(post.scheduledAt),
    status: post.status,
    created_at: post.createdAt.toISOString(),
    updated_at: post.updatedAt.toISOString(),
    sandbox: post.targets.length > 0 && post.targets.every((target) => target.sandbox),
    post_targets: post.targets.map(presentTarget),
    series_id: post.seriesId,
    rejection_reason: post.rejectionReason,
  };
}
