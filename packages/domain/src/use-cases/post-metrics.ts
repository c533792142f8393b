/**
 * What the API answers about a post's numbers: the latest per target and their totals, the
 * history of snapshots, a refresh on demand (debounced), and daily sums per account.
 */
import type { CoreDeps } from '../deps.ts';
import {
  type DomainError,
  notFound,
  type Problem,
  postNotPublished,
  validationFailed,
} from '../errors.ts';
import {
  type DailyMetrics,
  METRIC_NAMES,
  type MetricSnapshot,
  type MetricTrack,
  type MetricValues,
  noMetrics,
} from '../metrics-model.ts';
import type { Actor, Platform, PostWithTargets } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount, resolveContext } from './access.ts';
import { decodeCursor, encodeCursor, MAX_PAGE_SIZE } from './paging.ts';
import { getPost } from './posts.ts';

/** The most days one GET /analytics/daily answers. */
export const ANALYTICS_MAX_DAYS = 366;
/** GET /analytics/daily without `from`: this many days up to `to`. */
export const ANALYTICS_DEFAULT_DAYS = 30;
/** GET /posts/:id/metrics/history without `limit`. */
export const METRICS_HISTORY_DEFAULT_LIMIT = 100;

const DAY_MS = 86_400_000;

export interface PostMetrics {
  postId: string;
  /** Each metric summed over the targets that report it (null when none does). */
  totals: MetricValues;
  targets: MetricTrack[];
  /** When each target's next read is due, as the track says (null: none planned). */
}

/** Sums each metric over the tracks that report it: null only when no track does. */
export function sumMetrics(list: readonly (MetricValues | null)[]): MetricValues {
  const totals = noMetrics();
  for (const metrics of list) {
    if (!metrics) continue;
    for (const name of METRIC_NAMES) {
      const value = metrics[name];
      if (value !== null) totals[name] = (totals[name] ?? 0) + value;
    }
  }
  return totals;
}

/** The latest numbers of each of the post's targets, and their totals. */
async function latestMetricsOf(deps: CoreDeps, postId: string): Promise<PostMetrics> {
  const targets = await deps.repos.metrics.listByPost(postId);
  return { postId, totals: sumMetrics(targets.map((track) => track.metrics)), targets };
}

/** GET /posts/:id/metrics: the latest numbers of each published target. */
export async function getPostMetrics(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
): Promise<Result<PostMetrics, DomainError>> {
  const found = await getPost(deps, actor, postId);
  return found.ok ? ok(await latestMetricsOf(deps, postId)) : found;
}

/** Why a post has no numbers to refresh, or null when it has. */
function whyNotPublished(post: PostWithTargets): string | null {
  if (post.targets.some((target) => target.status === 'published')) return null;
  switch (post.status) {
    case 'scheduled':
    case 'queued':
    case 'publishing':
      return `the post is ${post.status}: it has no published target yet`;
    default:
      return `the post is ${post.status}: none of its targets was published`;
  }
}

/**
 * POST /posts/:id/metrics/refresh: every published target not read within METRICS_MIN_REFRESH_S
 * becomes due now (the worker reads it soon); answers the numbers as they are.
 */
export async function refreshPostMetrics(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
): Promise<Result<PostMetrics, DomainError>> {
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const why = whyNotPublished(found.value);
  if (why) return err(postNotPublished(why));
  const now = deps.clock.now();
  const readBefore = new Date(now.getTime() - deps.settings.metricsMinRefreshMs);
  const asked = await deps.repos.metrics.requestRefresh(postId, now, readBefore);
  deps.logger.debug({ postId, asked }, 'metrics refresh asked');
  return ok(await latestMetricsOf(deps, postId));
}

export interface HistoryQuery {
  targetId?: string;
  limit?: number;
  /** The `next_cursor` of the page before. */
  cursor?: string;
}

export interface HistoryPage {
  items: MetricSnapshot[];
  nextCursor: string | null;
}

/** GET /posts/:id/metrics/history: snapshots, oldest first, a page at a time. */
export async function getMetricsHistory(
  deps: CoreDeps,
  actor: Actor,
  postId: string,
  query: HistoryQuery,
): Promise<Result<HistoryPage, DomainError>> {
  const problems: Problem[] = [];
  const limit = query.limit ?? METRICS_HISTORY_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    problems.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  const position = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (position === null) problems.push({ field: 'before', message: 'is not a valid cursor' });
  if (query.targetId !== undefined && !isUuid(query.targetId))
    problems.push({ field: 'target_id', message: 'must be a target id (uuid)' });
  if (problems.length > 0) return err(validationFailed(problems));
  const found = await getPost(deps, actor, postId);
  if (!found.ok) return found;
  const targetId = query.targetId ?? null;
  if (targetId && !found.value.targets.some((target) => target.id === targetId))
    return err(notFound('target'));
  const after = position ? { takenAt: position.createdAt, id: position.id } : undefined;
  const rows = await deps.repos.metrics.history(postId, targetId, {
    limit: limit + 1,
    ...(after ? { after } : {}),
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const more = rows.length > limit && last;
  return ok({
    items,
    nextCursor: more ? encodeCursor({ createdAt: last.takenAt, id: last.id }) : null,
  });
}

export interface DailyRequest {
  socialAccountId?: string;
  workspaceId?: string;
  platform?: string;
  /** YYYY-MM-DD (UTC). */
  from?: string;
  to?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(text: string | undefined, field: string, problems: Problem[]): Date | null {
  if (text === undefined) return null;
  const day = new Date(`${text}T00:00:00.000Z`);
  if (!DATE.test(text) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) {
    problems.push({ field, message: 'must be a date, YYYY-MM-DD' });
    return null;
  }
  return day;
}

/** The checked day range of a daily request: both ends inclusive, at most 366 days. */
function dayRange(request: DailyRequest, now: Date): Result<{ from: Date; to: Date }, DomainError> {
  const problems: Problem[] = [];
  const givenFrom = parseDay(request.from, 'from', problems);
  const givenTo = parseDay(request.to, 'to', problems);
  if (problems.length > 0) return err(validationFailed(problems));
  const today = new Date(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  const to = givenTo ?? (givenFrom && givenFrom > today ? givenFrom : today);
  const from = givenFrom ?? new Date(to.getTime() - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS);
  if (from > to) return err(validationFailed([{ field: 'from', message: 'must not be after to' }]));
  const days = (to.getTime() - from.getTime()) / DAY_MS + 1;
  if (days > ANALYTICS_MAX_DAYS) {
    const message = `the range is ${days} days; at most ${ANALYTICS_MAX_DAYS} per request`;
    return err(validationFailed([{ field: 'to', message }]));
  }
  return ok({ from, to });
}

/** Whose numbers a daily request sums: one connection's, or one account's. */
async function dailyScope(
  deps: CoreDeps,
  actor: Actor,
  request: DailyRequest,
): Promise<Result<{ accountId: string; socialAccountId?: string }, DomainError>> {
  const { socialAccountId, workspaceId } = request;
  if (socialAccountId === undefined) {
    const context = await resolveContext(deps, actor, workspaceId);
    return context.ok ? ok({ accountId: context.value.accountId }) : context;
  }
  const connection = isUuid(socialAccountId)
    ? await deps.repos.socialAccounts.findById(socialAccountId)
    : null;
  const role = connection ? await canAccessAccount(deps, actor, connection.accountId) : null;
  if (!connection || !role) return err(notFound('social account'));
  if (workspaceId !== undefined && workspaceId !== connection.accountId) {
    return err(notFound('social account'));
  }
  return ok({ accountId: connection.accountId, socialAccountId });
}

/** GET /analytics/daily: per day of publication, the latest numbers of that day's posts. */
export async function getDailyAnalytics(
  deps: CoreDeps,
  actor: Actor,
  request: DailyRequest,
): Promise<Result<DailyMetrics[], DomainError>> {
  const range = dayRange(request, deps.clock.now());
  if (!range.ok) return range;
  if (request.platform !== undefined && !deps.platforms.names.includes(request.platform)) {
    const known = deps.platforms.names.join(', ');
    return err(validationFailed([{ field: 'platform', message: `must be one of ${known}` }]));
  }
  const scope = await dailyScope(deps, actor, request);
  if (!scope.ok) return scope;
  return ok(
    await deps.repos.metrics.daily({
      ...scope.value,
      ...range.value,
      ...(request.platform === undefined ? {} : { platform: request.platform as Platform }),
    }),
  );
}
