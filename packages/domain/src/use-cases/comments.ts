/**
 * What the API answers about comments: a post's comments with what each may have done to it, the
 * inbox of an account, marking read, a refresh on demand (debounced like the metrics'), hiding
 * and deleting on the platform. Comments belong to their post's account: anyone else is told
 * `not_found`, as for the post itself.
 */
import type { CommentsState, CommentTrack, StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import {
  type DomainError,
  notFound,
  type Problem,
  postNotPublished,
  unsupported,
  validationFailed,
} from '../errors.ts';
import type { Actor, Platform } from '../model.ts';
import type { CommentCapabilities, PlatformCommentsClient } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount, resolveContext } from './access.ts';
import { decodeCursor, pageOf } from './paging.ts';
import { getPost } from './posts.ts';
import { commentsClientFor } from './sandbox-comments.ts';

/** GET /posts/:id/comments and GET /inbox without `limit`. */
export const COMMENTS_PAGE_DEFAULT_LIMIT = 50;
/** The most comment ids one POST /inbox/read takes. */
export const MARK_READ_MAX_IDS = 500;

/** A comment as the API shows it: with what may be done to it on its platform. */
export interface CommentView extends StoredComment {
  can: CommentCapabilities;
}

/** Where the reading of one target's comments stands. */
export interface CommentTargetState {
  targetId: string;
  platform: Platform;
  state: CommentsState;
  readAt: Date | null;
  nextRefreshAt: Date | null;
  error: string | null;
}

export interface CommentList<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PostComments extends CommentList<CommentView> {
  targets: CommentTargetState[];
}

const NOTHING: CommentCapabilities = { reply: false, hide: false, delete: false };

/** A comment with its capabilities: none on a platform without a comments client. */
export function viewOf(deps: Pick<CoreDeps, 'platforms'>, comment: StoredComment): CommentView {
  const client = commentsClientFor(deps, comment.platform, comment.sandbox);
  const can = client ? client.can(comment) : NOTHING;
  return {
    ...comment,
    can: {
      reply: can.reply,
      hide: can.hide && client?.hide !== undefined,
      delete: can.delete && client?.delete !== undefined,
    },
  };
}

/** A track as the list shows it: `unsupported` wherever the platform reads no comments. */
function targetState(deps: Pick<CoreDeps, 'platforms'>, track: CommentTrack): CommentTargetState {
  const client = commentsClientFor(deps, track.platform, track.sandbox);
  return {
    targetId: track.targetId,
    platform: track.platform,
    state: client ? track.state : 'unsupported',
    readAt: track.readAt,
    nextRefreshAt: client ? track.dueAt : null,
    error: client ? track.error : `comments are not read for ${track.platform} posts`,
  };
}

/** A page request of a comment list: its limit and cursor checked (every problem named). */
function pageOfRequest(page: {
  limit?: number;
  cursor?: string;
}): Result<{ limit: number; before?: { createdAt: Date; id: string } }, DomainError> {
  const problems: Problem[] = [];
  const limit = page.limit ?? COMMENTS_PAGE_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    problems.push({ field: 'limit', message: 'must be an integer from 1 to 500' });
  }
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  if (before === null) problems.push({ field: 'cursor', message: 'is not a valid cursor' });
  if (problems.length > 0 || before === null) return err(validationFailed(problems));
  return ok({ limit, ...(before ? { before } : {}) });
}

/** GET /posts/:id/comments: a post's comments newest first, and each target's reading. */
export async function listPostComments(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  query: { targetId?: string; cursor?: string; limit?: number },
): Promise<Result<PostComments, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const { targetId } = query;
  if (targetId !== undefined && !found.value.targets.some((t) => t.id === targetId)) {
    return err(notFound('target'));
  }
  const page = pageOfRequest(query);
  if (!page.ok) return page;
  const { limit, before } = page.value;
  const rows = await deps.repos.comments.listByPost(postId, targetId ?? null, {
    limit: limit + 1,
    ...(before ? { before } : {}),
  });
  const tracks = await deps.repos.comments.tracksOfPost(postId);
  const { items, nextCursor } = pageOf(rows, limit);
  return ok({
    items: items.map((comment) => viewOf(deps, comment)),
    nextCursor,
    targets: tracks
      .filter((track) => targetId === undefined || track.targetId === targetId)
      .map((track) => targetState(deps, track)),
  });
}

/**
 * POST /posts/:id/comments/refresh: every published target not read within
 * METRICS_MIN_REFRESH_S becomes due now (the worker reads it soon); answers where each stands.
 */
export async function refreshPostComments(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
): Promise<Result<CommentTargetState[], DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  if (!found.value.targets.some((target) => target.status === 'published')) {
    return err(postNotPublished(`the post is ${found.value.status}: it has no published target`));
  }
  const now = deps.clock.now();
  const readBefore = new Date(now.getTime() - deps.settings.metricsMinRefreshMs);
  await deps.repos.comments.requestRefresh(postId, now, readBefore);
  const tracks = await deps.repos.comments.tracksOfPost(postId);
  return ok(tracks.map((track) => targetState(deps, track)));
}

/** GET /inbox: the comments of one account (the caller's own, or `workspaceId`), newest first. */
export async function listInbox(
  deps: CoreDeps,
  actor: Actor,
  query: {
    workspaceId?: string;
    platform?: Platform;
    unreadOnly?: boolean;
    cursor?: string;
    limit?: number;
  },
): Promise<Result<CommentList<CommentView>, DomainError>> {
  const context = await resolveContext(deps, actor, query.workspaceId);
  if (!context.ok) return context;
  const page = pageOfRequest(query);
  if (!page.ok) return page;
  const { limit, before } = page.value;
  const rows = await deps.repos.comments.inbox({
    accountId: context.value.accountId,
    limit: limit + 1,
    ...(query.platform ? { platform: query.platform } : {}),
    ...(query.unreadOnly ? { unreadOnly: true } : {}),
    ...(before ? { before } : {}),
  });
  const { items, nextCursor } = pageOf(rows, limit);
  return ok({ items: items.map((comment) => viewOf(deps, comment)), nextCursor });
}

/**
 * POST /inbox/read: marks read the comments of `commentIds` the caller may see (the others,
 * and unknown ids, are left alone: nothing tells them apart). Returns how many changed.
 */
export async function markCommentsRead(
  deps: CoreDeps,
  actor: Actor,
  commentIds: readonly string[],
): Promise<Result<number, DomainError>> {
  if (commentIds.length === 0 || commentIds.length > MARK_READ_MAX_IDS) {
    const message = `must hold 1 to ${MARK_READ_MAX_IDS} comment ids`;
    return err(validationFailed([{ field: 'comment_ids', message }]));
  }
  const byAccount = new Map<string, string[]>();
  for (const id of new Set(commentIds.filter(isUuid))) {
    const comment = await deps.repos.comments.findById(id);
    if (!comment) continue;
    const ids = byAccount.get(comment.accountId) ?? [];
    ids.push(id);
    byAccount.set(comment.accountId, ids);
  }
  let marked = 0;
  for (const [accountId, ids] of byAccount) {
    if (!(await canAccessAccount(deps, actor, accountId))) continue;
    marked += await deps.repos.comments.markRead(accountId, ids);
  }
  return ok(marked);
}

/** The comment when the caller may see it; `not_found` for anyone else. */
export async function findComment(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
): Promise<Result<StoredComment, DomainError>> {
  const comment = isUuid(commentId) ? await deps.repos.comments.findById(commentId) : null;
  const role = comment ? await canAccessAccount(deps, actor, comment.accountId) : null;
  return comment && role ? ok(comment) : err(notFound('comment'));
}

/** The comments client of a comment's platform, or why that platform's comments are not served. */
export function clientOf(
  deps: Pick<CoreDeps, 'platforms'>,
  comment: StoredComment,
): Result<PlatformCommentsClient, DomainError> {
  const client = commentsClientFor(deps, comment.platform, comment.sandbox);
  return client
    ? ok(client)
    : err(unsupported(`${comment.platform} comments cannot be answered or moderated here`));
}
