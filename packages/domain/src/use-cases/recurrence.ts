/**
 * Repeating posts. Each occurrence is its own post, created ahead of time: the first with the
 * series, the next ones by `extendSeries` (every reconcile pass), so the next occurrence exists
 * before the current one is due, also after a restart. Several workers may extend at once: the
 * unique (series, occurrence time) claim lets exactly one of them create each occurrence.
 */
import type { CoreDeps } from '../deps.ts';
import { type DomainError, notFound, type Problem, validationFailed } from '../errors.ts';
import {
  type AccountContext,
  type Actor,
  EDITABLE_POST_STATUSES,
  type PostTarget,
  type PostWithTargets,
} from '../model.ts';
import type { JobMeta } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import type { CreatePostInput } from '../rules/post-rules.ts';
import { occurrencesAfter, validateRecurrence, whyRuleNeverRepeats } from '../rules/recurrence.ts';
import { isUuid } from '../rules/shape.ts';
import type { PostSeries, SeriesOccurrence } from '../series-model.ts';
import { canAccessAccount } from './access.ts';
import { holdsPostsBy } from './approval-hold.ts';
import { storeEvents } from './event-deliveries.ts';
import { linkHostedMedia } from './hosted-media.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { cancelPost, creationEvents, enqueueStoredPost, newTarget, preparePost } from './posts.ts';

/** Future occurrences kept created: the one due next and the one after it. */
export const SERIES_OCCURRENCES_AHEAD = 2;
/** Upcoming times GET /post-series/:id shows. */
export const SERIES_PREVIEW = 10;

/** POST /posts/schedule with `recurrence`: the series and its first occurrence (returned). */
export async function createRepeatingPost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  recurrenceValue: unknown,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  const { problems, recurrence } = validateRecurrence(recurrenceValue);
  const prepared = await preparePost(deps, ctx, input, 'scheduled');
  const postProblems: Problem[] =
    !prepared.ok && prepared.error.code === 'validation_failed' ? prepared.error.details : [];
  if (prepared.ok && recurrence?.until && recurrence.until < (prepared.value.scheduledAt as Date)) {
    problems.push({ field: 'recurrence.until', message: 'must not be before scheduled_at' });
  }
  if (prepared.ok && recurrence && recurrence.count !== 1) {
    const never = whyRuleNeverRepeats({
      rrule: recurrence.rrule,
      timezone: recurrence.timezone,
      firstAt: prepared.value.scheduledAt as Date,
    });
    if (never) problems.push({ field: 'recurrence.rrule', message: never });
  }
  if (problems.length > 0 || !recurrence)
    return err(validationFailed([...postProblems, ...problems]));
  if (!prepared.ok) return prepared;

  const post = prepared.value;
  const now = deps.clock.now();
  const series: PostSeries = {
    id: deps.ids.newId(),
    accountId: post.accountId,
    createdBy: post.createdBy,
    rrule: recurrence.rrule,
    timezone: recurrence.timezone,
    count: recurrence.count,
    until: recurrence.until,
    firstAt: post.scheduledAt as Date,
    template: {
      content: post.content,
      mediaUrls: post.mediaUrls,
      platformOptions: post.platformOptions,
      thread: post.thread,
      firstComment: post.firstComment,
      targets: post.targets.map(({ socialAccountId, platform, sandbox }) => ({
        socialAccountId,
        platform,
        sandbox,
      })),
    },
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
  post.seriesId = series.id;
  const deliveries = await deps.uow.run(async (repos) => {
    await repos.series.insert(series);
    await repos.series.claimOccurrence(series.id, series.firstAt, post.id);
    await repos.posts.insert(post);
    await linkHostedMedia(deps, repos, post);
    return storeEvents(deps, repos, creationEvents(post));
  });
  await enqueueDeliveries(deps, deliveries, meta);
  await enqueueStoredPost(deps, post, meta);
  await extendOne(deps, series, series.firstAt);
  return ok(post);
}

/**
 * The post of one occurrence: the template at `at`. `held`: it waits for approval, as each
 * occurrence of a member's series does on its own (docs/api.md#approval).
 */
function occurrencePost(
  deps: CoreDeps,
  series: PostSeries,
  at: Date,
  held: boolean,
): PostWithTargets {
  const now = deps.clock.now();
  const postId = deps.ids.newId();
  const targets: PostTarget[] = series.template.targets.map((target) =>
    newTarget(
      deps,
      postId,
      { id: target.socialAccountId, platform: target.platform, sandbox: target.sandbox },
      now,
    ),
  );
  return {
    id: postId,
    accountId: series.accountId,
    createdBy: series.createdBy,
    content: series.template.content,
    mediaUrls: series.template.mediaUrls,
    platformOptions: series.template.platformOptions,
    thread: series.template.thread ?? [],
    firstComment: series.template.firstComment ?? null,
    scheduledAt: at,
    status: held ? 'pending_approval' : 'scheduled',
    createdAt: now,
    updatedAt: now,
    seriesId: series.id,
    rejectionReason: null,
    targets,
  };
}

/**
 * Creates the series' next SERIES_OCCURRENCES_AHEAD occurrences that have no post yet; marks it
 * finished when the rule has no occurrence left. Returns how many posts this call created.
 */
async function extendOne(
  deps: CoreDeps,
  series: PostSeries,
  lastOccurrenceAt: Date | null,
): Promise<number> {
  const now = deps.clock.now();
  // Walking from the latest occurrence keeps an old series as cheap as a new one. When that
  // occurrence is still ahead, the series was listed with at least one but fewer than
  // SERIES_OCCURRENCES_AHEAD ahead: one more past it, and the next pass tops up again.
  const ahead = lastOccurrenceAt !== null && lastOccurrenceAt > now;
  const upcoming = ahead
    ? occurrencesAfter(series, lastOccurrenceAt, 1, lastOccurrenceAt)
    : occurrencesAfter(series, now, SERIES_OCCURRENCES_AHEAD, lastOccurrenceAt);
  if (upcoming.length === 0) {
    await deps.repos.series.setStatus(series.id, ['active'], 'finished', now);
    return 0;
  }
  let created = 0;
  // The creator's role now: an occurrence created after a promotion (or after the team stopped
  // requiring approval) is not held, one created after a demotion is.
  const held = await holdsPostsBy(deps, series.accountId, series.createdBy);
  for (const at of upcoming) {
    if (lastOccurrenceAt !== null && at.getTime() <= lastOccurrenceAt.getTime()) continue;
    const post = occurrencePost(deps, series, at, held);
    const claimed = await deps.uow.run(async (repos) => {
      if (!(await repos.series.claimOccurrence(series.id, at, post.id))) return null;
      await repos.posts.insert(post);
      await linkHostedMedia(deps, repos, post);
      return storeEvents(deps, repos, creationEvents(post));
    });
    if (!claimed) continue;
    created++;
    await enqueueDeliveries(deps, claimed);
    await enqueueStoredPost(deps, post);
  }
  return created;
}

/** The reconciler's pass over active series: returns how many occurrences it created. */
export async function extendSeries(deps: CoreDeps): Promise<number> {
  let created = 0;
  // Only the series short of occurrences ahead: most passes expand no rule at all.
  const due = await deps.repos.series.listNeedingOccurrences(
    deps.clock.now(),
    SERIES_OCCURRENCES_AHEAD,
    deps.settings.reconcileBatchSize,
  );
  for (const { series, lastOccurrenceAt } of due) {
    try {
      created += await extendOne(deps, series, lastOccurrenceAt);
    } catch (error) {
      // One series failing (a connection deleted meanwhile...) must not stop the others.
      deps.logger.warn({ seriesId: series.id, err: String(error) }, 'extending a series failed');
    }
  }
  return created;
}

/** A series as GET /post-series/:id shows it. */
export interface SeriesView {
  series: PostSeries;
  occurrences: SeriesOccurrence[];
  /** The rule's next times after now (empty once the series is stopped or finished). */
  nextOccurrences: Date[];
}

async function findSeries(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<PostSeries, DomainError>> {
  const series = isUuid(id) ? await deps.repos.series.findById(id) : null;
  const role = series ? await canAccessAccount(deps, actor, series.accountId) : null;
  return series && role ? ok(series) : err(notFound('post series'));
}

async function viewOf(deps: CoreDeps, series: PostSeries): Promise<SeriesView> {
  const occurrences = await deps.repos.series.listOccurrences(series.id);
  const latest = occurrences.reduce<Date | null>(
    (known, { occurrenceAt }) => (known === null || occurrenceAt > known ? occurrenceAt : known),
    null,
  );
  return {
    series,
    occurrences,
    nextOccurrences:
      series.status === 'stopped'
        ? []
        : occurrencesAfter(series, deps.clock.now(), SERIES_PREVIEW, latest),
  };
}

export async function getSeries(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<SeriesView, DomainError>> {
  const found = await findSeries(deps, actor, id);
  return found.ok ? ok(await viewOf(deps, found.value)) : found;
}

/**
 * Stops future occurrences: no new one is created, and those not yet publishing are
 * cancelled; published ones stay. Stopping twice is fine.
 */
export async function stopSeries(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<SeriesView, DomainError>> {
  const found = await findSeries(deps, actor, id);
  if (!found.ok) return found;
  // After this commits no occurrence can be claimed (the claim holds and checks the series row),
  // so the list read below has every occurrence there will ever be.
  await deps.repos.series.setStatus(id, ['active', 'finished'], 'stopped', deps.clock.now());
  for (const occurrence of await deps.repos.series.listOccurrences(id)) {
    const post = await deps.repos.posts.findById(occurrence.postId);
    if (post && EDITABLE_POST_STATUSES.includes(post.status)) {
      // A post a worker starts meanwhile answers a conflict: it publishes, as a started one does.
      await cancelPost(deps, actor, post.id);
    }
  }
  const series = await deps.repos.series.findById(id);
  return ok(await viewOf(deps, series ?? found.value));
}
