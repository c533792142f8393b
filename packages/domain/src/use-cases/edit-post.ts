import type { CoreDeps } from '../deps.ts';
import {
  conflict,
  type DomainError,
  notFound,
  type Problem,
  postNotEditable,
  validationFailed,
} from '../errors.ts';
import {
  type Actor,
  EDITABLE_POST_STATUSES,
  type PostStatus,
  type PostWithTargets,
  TERMINAL_POST_STATUSES,
} from '../model.ts';
import type { JobMeta } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { parseIsoInstant } from '../rules/iso-time.ts';
import { type CreatePostInput, validateCreatePost } from '../rules/post-rules.ts';
import { canAccessAccount } from './access.ts';
import { approvalEvent, holdsPosts } from './approval-hold.ts';
import { postEvent } from './event-bodies.ts';
import { emitEvents } from './event-deliveries.ts';
import { hostedMediaProblems, linkHostedMedia, mediaUrlFields } from './hosted-media.ts';
import { resolveTargets } from './post-targets.ts';
import {
  draftOf,
  getPost,
  newTarget,
  publisherProblems,
  storedContentOf,
  type TargetToCheck,
  uniqueProblems,
} from './posts.ts';

/** The body of `PATCH /posts/:id`: every field optional, each one replaces the stored value. */
export interface EditPostInput {
  content?: unknown;
  media_urls?: unknown;
  platform_options?: unknown;
  social_account_ids?: unknown;
  scheduled_at?: unknown;
  /** Replaces the follow-ups; `[]` removes them. */
  thread?: unknown;
  /** Replaces the first comment; `null` removes it. */
  first_comment?: unknown;
}

const given = (value: unknown): boolean => value !== undefined;

/** Why the post can no longer be edited, or null when it can. */
export function notEditableReason(post: PostWithTargets): string | null {
  const status: PostStatus = post.status;
  if (status === 'cancelled') return 'the post is cancelled';
  if (TERMINAL_POST_STATUSES.includes(status)) return `the post is already ${status}`;
  if (!EDITABLE_POST_STATUSES.includes(status)) return 'publishing has begun';
  if (post.targets.some((target) => target.status !== 'pending' || target.attempts > 0)) {
    return 'a target has started publishing';
  }
  return null;
}

const refused = (post: PostWithTargets): DomainError =>
  postNotEditable(
    `the post cannot be edited: ${notEditableReason(post) ?? 'publishing has begun'}`,
  );

/**
 * The post as the edit would make it: the stored fields with the given ones in their place,
 * checked with the rules of create. Connections already targeted stay targeted as they are
 * (what was promised at creation holds); added ones pass the checks of create.
 */
async function planEdit(deps: CoreDeps, post: PostWithTargets, input: EditPostInput, now: Date) {
  const keptIds = new Set(post.targets.map((target) => target.socialAccountId));
  const ids: unknown = given(input.social_account_ids) ? input.social_account_ids : [...keptIds];
  const merged: CreatePostInput = {
    content: given(input.content) ? input.content : post.content,
    media_urls: given(input.media_urls) ? input.media_urls : post.mediaUrls,
    platform_options: given(input.platform_options) ? input.platform_options : post.platformOptions,
    social_account_ids: ids,
    scheduled_at: given(input.scheduled_at) ? input.scheduled_at : undefined,
    thread: given(input.thread)
      ? input.thread
      : post.thread.map((part) => ({ content: part.content, media_urls: part.mediaUrls })),
    first_comment: given(input.first_comment) ? input.first_comment : post.firstComment,
  };
  const list: unknown[] = Array.isArray(ids) ? ids : [];
  const resolved = await resolveTargets(
    deps,
    { accountId: post.accountId },
    { social_account_ids: list },
  );
  const added = resolved.targets.filter(({ connection }) => !keptIds.has(connection.id));
  const wanted = new Set(list);
  const kept = post.targets.filter((target) => wanted.has(target.socialAccountId));
  const fieldOfKept = (id: string) => `social_account_ids[${list.indexOf(id)}]`;
  // A kept connection's platform data, when it still resolves (per-connection rules).
  const dataOf = new Map(
    resolved.targets.map(({ connection }) => [connection.id, connection.platformData ?? null]),
  );
  const targetPlatforms: TargetToCheck[] = [
    ...kept.map((target) => ({
      platform: target.platform,
      field: fieldOfKept(target.socialAccountId),
      platformData: dataOf.get(target.socialAccountId) ?? null,
    })),
    ...added.map(({ connection, field }) => ({
      platform: connection.platform,
      field,
      platformData: connection.platformData ?? null,
    })),
  ];
  const draft = draftOf(merged);
  // A post that stays unscheduled is checked as one published now; one given a time, as one
  // scheduled (it must be in the future). A stored time is not checked again: it may have
  // come close while the post waited, and the edit does not move it.
  const mode = given(input.scheduled_at) || post.scheduledAt !== null ? 'scheduled' : 'now';
  const ruleProblems = validateCreatePost(merged, {
    mode,
    now,
    platforms: deps.platforms,
    targetPlatforms: targetPlatforms.map((target) => target.platform),
  }).filter((problem) => given(input.scheduled_at) || problem.field !== 'scheduled_at');
  // A connection the post already goes to may since have expired: keeping it is not adding it.
  const targetProblems = resolved.problems.filter((problem) => {
    const index = /^social_account_ids\[(\d+)\]$/.exec(problem.field)?.[1];
    return index === undefined || !keptIds.has(String(list[Number(index)]));
  });
  const problems: Problem[] = uniqueProblems([
    ...ruleProblems,
    ...targetProblems,
    ...publisherProblems(deps, targetPlatforms, draft),
    ...(draft ? await hostedMediaProblems(deps, post.accountId, mediaUrlFields(draft)) : []),
  ]);
  return { draft, problems, kept, added };
}

/**
 * Edits a post no worker has started: its content, media, options, connections and time.
 * The database decides (one conditional statement); the queue follows: a moved time moves the
 * job, and a job that fires at the old time finds the new one and waits for it.
 */
export async function editPost(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  input: EditPostInput,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const post = found.value;
  if (notEditableReason(post) !== null) return err(refused(post));

  const now = deps.clock.now();
  const { draft, problems, kept, added } = await planEdit(deps, post, input, now);
  if (problems.length > 0 || !draft) return err(validationFailed(problems));

  const scheduledAt = given(input.scheduled_at)
    ? parseIsoInstant(String(input.scheduled_at))
    : post.scheduledAt;
  const role = await canAccessAccount(deps, actor, post.accountId);
  const held = role !== null && (await holdsPosts(deps, { accountId: post.accountId, role }));
  // A member's edit waits for approval again; an owner's or an admin's leaves a waiting post
  // waiting (approval is a decision of its own, never a side effect of an edit).
  const status: PostStatus =
    held || post.status === 'pending_approval'
      ? 'pending_approval'
      : scheduledAt === null
        ? post.status
        : 'scheduled';
  const keptIds = new Set(kept.map((target) => target.id));
  const applied = await deps.repos.posts.applyEdit({
    postId: post.id,
    // Only from the approval state read above: an approval (or a return to waiting) landing
    // meanwhile makes this edit a conflict rather than silently undoing or bypassing it.
    from: post.status === 'pending_approval' ? ['pending_approval'] : ['scheduled', 'queued'],
    ...storedContentOf(draft),
    scheduledAt,
    status,
    // Strictly later than the version read: an approval decided on that version must not apply.
    at: new Date(Math.max(now.getTime(), post.updatedAt.getTime() + 1)),
    removeTargetIds: post.targets.filter((t) => !keptIds.has(t.id)).map((t) => t.id),
    addTargets: added.map(({ connection }) => newTarget(deps, post.id, connection, now)),
  });
  const current = await deps.repos.posts.findById(post.id);
  if (!current) return err(notFound('post'));
  // A worker (or a cancel) got there first: nothing was changed.
  if (!applied) {
    return notEditableReason(current) === null
      ? err(conflict('the post was approved or changed while you edited it: read it again'))
      : err(refused(current));
  }
  await linkHostedMedia(deps, deps.repos, current);
  // Stored right after the edit (one statement, no unit of work to share): a crash in between
  // leaves an edit whose post.updated is never sent. A webhook filtered to a connection the
  // edit removed hears of it too.
  const event = postEvent('post.updated', current);
  const before = post.targets.map((target) => target.socialAccountId);
  event.socialAccountIds = [...new Set([...event.socialAccountIds, ...before])];
  const sentBack = status === 'pending_approval' && post.status !== 'pending_approval';
  const requested = sentBack
    ? [approvalEvent('post.approval_requested', current, actor.userId)]
    : [];
  await emitEvents(deps, [event, ...requested], meta);

  if (sentBack) await dropJob(deps, current);
  const moved = scheduledAt?.getTime() !== post.scheduledAt?.getTime();
  if (moved && status !== 'pending_approval') await moveJob(deps, current, meta);
  return ok(current);
}

/**
 * An approved post sent back to approval loses its job. Should the removal fail, the job finds
 * the post waiting and ends without publishing it (a publish run never starts that status).
 */
async function dropJob(deps: CoreDeps, post: PostWithTargets): Promise<void> {
  try {
    await deps.queue.cancelPublish(post.id);
  } catch (error) {
    deps.logger.warn({ postId: post.id, err: String(error) }, 'removing the publish job failed');
  }
}

/**
 * Puts the post's job at its new time. Both steps may fail or race a job that is running: the
 * stored time is what a job checks before it publishes, and the reconciler re-adds a job that
 * is missing, so the queue here only makes the new time punctual.
 */
async function moveJob(deps: CoreDeps, post: PostWithTargets, meta: JobMeta): Promise<void> {
  try {
    await deps.queue.cancelPublish(post.id);
    await deps.queue.enqueuePublish(post.id, post.scheduledAt, meta);
  } catch (error) {
    deps.logger.warn({ postId: post.id, err: String(error) }, 'moving the publish job failed');
  }
}
