// The numbers of published X posts (docs/platforms.md#x; docs.x.com "Posts lookup", "Metrics"):
// GET /2/tweets?ids=… with public_metrics and, for the author's own posts of the last 30 days,
// non_public_metrics (link clicks). X refuses the private field per post (a "Field
// Authorization Error" beside the data, the post left out) or for the whole call (403): those
// posts are asked again with public_metrics only, their clicks staying null.
import type {
  MetricsItemResult,
  MetricsReadItem,
  PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { asString, isRecord } from '../shared/http.ts';
import { goneResult, metricsFrom, rawOf, readBatch, readResult } from '../shared/metrics-read.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { xFailure } from './api.ts';
import type { TwitterSettings } from './settings.ts';

/** X's most ids per lookup. */
const X_LOOKUP_BATCH = 100;
const PUBLIC_KEYS = [
  'like_count',
  'reply_count',
  'retweet_count',
  'quote_count',
  'bookmark_count',
  'impression_count',
] as const;
const PROBLEM = 'https://api.twitter.com/2/problems/';

/** One lookup's answer: the posts by id, and X's per-post problems. */
interface Lookup {
  posts: Map<string, Record<string, unknown>>;
  problems: Map<string, Record<string, unknown>>;
}

export function createTwitterMetricsReader(
  config: TwitterSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return {
    batchSize: X_LOOKUP_BATCH,
    reports: ['likes', 'comments', 'shares', 'quotes', 'saves', 'impressions', 'clicks'],
    scopes: ['tweet.read', 'users.read'],
    read: ({ connection, items, signal }) =>
      readBatch(async () => {
        const call = bearerClient(runtime, signal, {
          baseUrl: config.apiBaseUrl,
          label: 'X',
          failure: xFailure,
        });
        const lookup = async (ids: readonly string[], privateToo: boolean): Promise<Lookup> => {
          const query = new URLSearchParams({
            ids: ids.join(','),
            'tweet.fields': privateToo ? 'public_metrics,non_public_metrics' : 'public_metrics',
          });
          const response = await call(
            'GET',
            `/2/tweets?${query}`,
            connection.accessToken,
            'post lookup',
          );
          return lookupOf(response.json);
        };
        const ids = [...new Set(items.map((item) => item.platformPostId))];
        const answer = await lookupRefusingPrivate(lookup, ids);
        return new Map(items.map((item) => [item.targetId, resultOf(item, answer)]));
      }),
  };
}

/**
 * Asks with non_public_metrics first, then again with public_metrics only for the posts X
 * refused it on (all of them when it refused the whole call with 403).
 */
async function lookupRefusingPrivate(
  lookup: (ids: readonly string[], privateToo: boolean) => Promise<Lookup>,
  ids: readonly string[],
): Promise<Lookup> {
  let first: Lookup;
  try {
    first = await lookup(ids, true);
  } catch (error) {
    const refused =
      error instanceof PublishFailure &&
      error.outcome.kind === 'failed' &&
      error.outcome.code === 'forbidden';
    if (!refused) throw error;
    return lookup(ids, false);
  }
  const refusedPrivate = [...first.problems]
    .filter(([, problem]) => asString(problem.type) === `${PROBLEM}not-authorized-for-field`)
    .map(([id]) => id);
  if (refusedPrivate.length === 0) return first;
  const again = await lookup(refusedPrivate, false);
  for (const id of refusedPrivate) first.problems.delete(id);
  return {
    posts: new Map([...first.posts, ...again.posts]),
    problems: new Map([...first.problems, ...again.problems]),
  };
}

function lookupOf(json: unknown): Lookup {
  const body = isRecord(json) ? json : {};
  const data = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
  const errors = Array.isArray(body.errors) ? body.errors.filter(isRecord) : [];
  const posts = new Map(data.map((post) => [asString(post.id) ?? '', post]));
  const problems = new Map<string, Record<string, unknown>>();
  for (const problem of errors) {
    const id = asString(problem.resource_id) ?? asString(problem.value);
    if (id !== undefined && !problems.has(id)) problems.set(id, problem);
  }
  return { posts, problems };
}

function resultOf(item: MetricsReadItem, lookup: Lookup): MetricsItemResult {
  const post = lookup.posts.get(item.platformPostId);
  if (post) {
    const publicMetrics = isRecord(post.public_metrics) ? post.public_metrics : {};
    const privateMetrics = isRecord(post.non_public_metrics) ? post.non_public_metrics : {};
    const metrics = {
      ...metricsFrom(publicMetrics, {
        likes: 'like_count',
        comments: 'reply_count',
        shares: 'retweet_count',
        quotes: 'quote_count',
        saves: 'bookmark_count',
        impressions: 'impression_count',
      }),
      clicks: metricsFrom(privateMetrics, { clicks: 'url_link_clicks' }).clicks,
    };
    const raw: Record<string, unknown> = { public_metrics: rawOf(publicMetrics, PUBLIC_KEYS) };
    if (isRecord(post.non_public_metrics)) raw.non_public_metrics = post.non_public_metrics;
    return readResult(metrics, raw);
  }
  const problem = lookup.problems.get(item.platformPostId);
  if (!problem)
    return { kind: 'failed', code: 'not_returned', message: 'X did not return this post' };
  const title = asString(problem.title) ?? 'X error';
  const message = `${title}: ${asString(problem.detail) ?? 'no detail'}`;
  const type = asString(problem.type) ?? '';
  if (type === `${PROBLEM}resource-not-found` || title === 'Not Found Error') {
    return goneResult(message);
  }
  if (type === `${PROBLEM}not-authorized-for-resource`) {
    return { kind: 'unavailable', message };
  }
  return { kind: 'failed', code: type.replace(PROBLEM, '') || 'x_error', message };
}
