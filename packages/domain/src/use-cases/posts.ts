import type { CoreDeps } from '../deps.ts';
import { conflict, type DomainError, notFound, type Problem, validationFailed } from '../errors.ts';
import {
  type AccountContext,
  type Actor,
  EDITABLE_POST_STATUSES,
  type Platform,
  type PlatformOptions,
  type PostTarget,
  type PostWithTargets,
  type SocialAccount,
  type ThreadPart,
} from '../model.ts';
import type { JobMeta, PostDraft } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { parseIsoInstant } from '../rules/iso-time.ts';
import { type CreatePostInput, type PostMode, validateCreatePost } from '../rules/post-rules.ts';
import { isRecord, isUuid } from '../rules/shape.ts';
import { canAccessAccount } from './access.ts';
import { approvalEvent, holdsPosts } from './approval-hold.ts';
import { postEvent } from './event-bodies.ts';
import { type EventToStore, emitEvents, storeEvents } from './event-deliveries.ts';
import { hostedMediaProblems, linkHostedMedia, mediaUrlFields } from './hosted-media.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { resolveTargets } from './post-targets.ts';

/** The draft publishers validate, or null when the shared rules already found it ill-typed. */
export function draftOf(input: CreatePostInput): PostDraft | null {
  const { content, media_urls: media, platform_options: options } = input;
  if (content !== undefined && content !== null && typeof content !== 'string') return null;
  if (media !== undefined && media !== null) {
    if (!Array.isArray(media) || !media.every((url) => typeof url === 'string')) return null;
  }
  if (options !== undefined && options !== null && !isRecord(options)) return null;
  const thread = threadOf(input.thread);
  const firstComment = input.first_comment;
  if (thread === null) return null;
  if (firstComment !== undefined && firstComment !== null && typeof firstComment !== 'string') {
    return null;
  }
  return {
    content: content ?? '',
    mediaUrls: media ?? [],
    platformOptions: (options ?? {}) as PlatformOptions,
    thread,
    firstComment: firstComment ?? null,
  };
}

/** What a post stores of a draft: its content, media, options, follow-ups and first comment. */
export function storedContentOf(
  draft: PostDraft,
): Pick<PostWithTargets, 'content' | 'mediaUrls' | 'platformOptions' | 'thread' | 'firstComment'> {
  return {
    content: draft.content,
    mediaUrls: draft.mediaUrls,
    platformOptions: draft.platformOptions,
    thread: draft.thread ?? [],
    firstComment: draft.firstComment ?? null,
  };
}

/** The follow-ups as stored, or null when ill-typed (the shared rules say how). */
function threadOf(value: unknown): ThreadPart[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return null;
  const parts: ThreadPart[] = [];
  for (const part of value) {
    if (!isRecord(part) || typeof part.content !== 'string') return null;
    const media = part.media_urls ?? [];
    if (!Array.isArray(media) || !media.every((url) => typeof url === 'string')) return null;
    parts.push({ content: part.content, mediaUrls: media });
  }
  return parts;
}

/** A connection a post goes to, as the publisher rules see it. */
export interface TargetToCheck {
  platform: Platform;
  /** Where the request names it (`social_account_ids[0]`, `platforms[1]`). */
  field: string;
  /** Its platform data (null or absent: none), for rules that differ per connection. */
  platformData?: SocialAccount['platformData'];
}

/**
 * Rules each target platform's publisher adds (once per platform, then once per connection
 * where they depend on it), and platforms this deployment cannot serve.
 */
export function publisherProblems(
  deps: CoreDeps,
  targets: readonly TargetToCheck[],
  draft: PostDraft | null,
): Problem[] {
  const problems: Problem[] = [];
  const checked = new Set<Platform>();
  for (const { platform, field, platformData } of targets) {
    const publisher = deps.platforms.get(platform);
    if (!checked.has(platform)) {
      checked.add(platform);
      if (!publisher) {
        problems.push({ field, message: `publishing to ${platform} is not available` });
      } else if (draft) problems.push(...publisher.validate(draft));
    }
    if (publisher?.validateFor && draft) {
      problems.push(...publisher.validateFor(draft, platformData ?? null, field));
    }
  }
  return problems;
}

/** The target a new post (or an edit adding a connection) gets: pending, nothing tried yet. */
export function newTarget(
  deps: CoreDeps,
  postId: string,
  connection: Pick<SocialAccount, 'id' | 'platform' | 'sandbox'>,
  now: Date,
): PostTarget {
  return {
    id: deps.ids.newId(),
    postId,
    platform: connection.platform,
    socialAccountId: connection.id,
    sandbox: connection.sandbox,
    status: 'pending',
    attempts: 0,
    errorCode: null,
    errorMessage: null,
    retryable: null,
    platformPostId: null,
    platformUrl: null,
    threadPostIds: [],
    firstCommentId: null,
    resumeState: null,
    leaseExpiresAt: null,
    publishedAt: null,
    unpublish: null,
    updatedAt: now,
  };
}

/** The shared rules and a publisher may word the same problem alike: report it once. */
export function uniqueProblems(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Every check create runs (shared rules, the caller's connections, each platform's own rules),
 * and the post it would store: nothing is written. createPost, dry runs and bulk creates share it.
 */
export async function preparePost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  mode: PostMode,
): Promise<Result<PostWithTargets, DomainError>> {
  const now = deps.clock.now();
  const resolved = await resolveTargets(deps, ctx, input);
  const draft = draftOf(input);
  const problems = uniqueProblems([
    ...validateCreatePost(input, {
      mode,
      now,
      platforms: deps.platforms,
      targetPlatforms: resolved.targets.map((target) => target.connection.platform),
    }),
    ...resolved.problems,
    ...publisherProblems(
      deps,
      resolved.targets.map(({ connection, field }) => ({
        platform: connection.platform,
        field,
        platformData: connection.platformData ?? null,
      })),
      draft,
    ),
    // Our own media are looked up, not fetched: each must be a live upload of this account.
    ...(draft ? await hostedMediaProblems(deps, ctx.accountId, mediaUrlFields(draft)) : []),
  ]);
  if (problems.length > 0 || !draft) return err(validationFailed(problems));

  const postId = deps.ids.newId();
  const scheduledAt = mode === 'scheduled' ? parseIsoInstant(String(input.scheduled_at)) : null;
  // A member's post in a team that requires approval waits for an owner or an admin.
  const held = await holdsPosts(deps, ctx);
  const targets: PostTarget[] = resolved.targets.map(({ connection }) =>
    newTarget(deps, postId, connection, now),
  );
  const post: PostWithTargets = {
    id: postId,
    accountId: ctx.accountId,
    createdBy: ctx.userId,
    ...storedContentOf(draft),
    scheduledAt,
    status: held ? 'pending_approval' : mode === 'now' ? 'queued' : 'scheduled',
    createdAt: now,
    updatedAt: now,
    seriesId: null,
    rejectionReason: null,
    targets,
  };
  return ok(post);
}

export async function createPost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  mode: PostMode,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  const prepared = await preparePost(deps, ctx, input, mode);
  if (!prepared.ok) return prepared;
  return ok(await storePost(deps, prepared.value, meta));
}

/** Stores a prepared post and enqueues its publish job. */
export async function storePost(
  deps: CoreDeps,
  post: PostWithTargets,
  meta: JobMeta = {},
): Promise<PostWithTargets> {
  // No unit of work: `insert` is atomic by itself (the PostgreSQL adapter stores the post and
  // its targets in one statement, a data-modifying CTE; the in-memory fake checks before it
  // writes), and it is the only write here. Saves BEGIN and COMMIT on every create.
  await deps.repos.posts.insert(post);
  await linkHostedMedia(deps, deps.repos, post);
  // Stored right after the post (there is no unit of work to share): a crash in between
  // leaves a post whose post.created is never sent.
  await emitEvents(deps, creationEvents(post), meta);
  await enqueueStoredPost(deps, post, meta);
  return post;
}

/** post.created, and post.approval_requested (asked by its creator) when the post is held. */
export function creationEvents(post: PostWithTargets): EventToStore[] {
  const created = postEvent('post.created', post);
  return post.status === 'pending_approval'
    ? [created, approvalEvent('post.approval_requested', post, post.createdBy)]
    : [created];
}

/**
 * Counts a committed post and enqueues its publish job (the reconciler retries a failed
 * enqueue); a post waiting for approval gets its job when it is approved.
 */
export async function enqueueStoredPost(
  deps: CoreDeps,
  post: PostWithTargets,
  meta: JobMeta = {},
): Promise<void> {
  const { scheduledAt, targets } = post;
  deps.metrics?.postCreated({ scheduled: scheduledAt !== null, targets: targets.length });
  if (post.status !== 'pending_approval') await enqueuePublishJob(deps, post, meta);
}

/** Enqueues the publish job of a committed post at its time (now when it has passed). */
export async function enqueuePublishJob(
  deps: CoreDeps,
  post: Pick<PostWithTargets, 'id' | 'scheduledAt'>,
  meta: JobMeta = {},
): Promise<void> {
  const { scheduledAt } = post;
  const runAt = scheduledAt !== null && scheduledAt > deps.clock.now() ? scheduledAt : null;
  try {
    await deps.queue.enqueuePublish(post.id, runAt, meta);
  } catch (error) {
    // The post is committed; the reconciler enqueues it on its next pass.
    deps.logger.warn({ postId: post.id, err: String(error) }, 'enqueue of publish job failed');
  }
}

export async function getPost(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
): Promise<Result<PostWithTargets, DomainError>> {
  const post = isUuid(postId) ? await deps.repos.posts.findById(postId) : null;
  const role = post ? await canAccessAccount(deps, actor, post.accountId) : null;
  return post && role ? ok(post) : err(notFound('post'));
}

/** Cancels a post that has not started publishing (or waits for approval); twice is fine. */
export async function cancelPost(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
): Promise<Result<PostWithTargets, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const post = found.value;
  if (post.status === 'cancelled') return ok(post);
  const now = deps.clock.now();
  // Conditional: a worker moving the post to `publishing` at the same moment wins or loses cleanly.
  // post.cancelled is stored in the same unit of work: cancelled and announced, or neither.
  const cancelled = await deps.uow.run(async (repos) => {
    if (!(await repos.posts.transitionStatus(post.id, EDITABLE_POST_STATUSES, 'cancelled', now))) {
      return null;
    }
    await repos.posts.cancelPendingTargets(post.id, now);
    const event = postEvent('post.cancelled', { ...post, status: 'cancelled' });
    return storeEvents(deps, repos, [event]);
  });
  const current = (await deps.repos.posts.findById(post.id)) ?? post;
  if (!cancelled) {
    return current.status === 'cancelled'
      ? ok(current)
      : err(conflict(`the post cannot be cancelled: it is already ${current.status}`));
  }
  await enqueueDeliveries(deps, cancelled);
  try {
    await deps.queue.cancelPublish(post.id);
  } catch (error) {
    // Harmless: a job that still runs finds the post cancelled and stops.
    deps.logger.warn({ postId: post.id, err: String(error) }, 'removing the publish job failed');
  }
  return ok(current);
}
