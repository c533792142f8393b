// What the comments clients of Meta's Graph APIs (Facebook, Instagram, Threads) share: their
// calls (a comment or post deleted meanwhile is CommentGone), Graph's times, and its cursor
// pages (developers.facebook.com "Graph API: Paginated Results").
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { CommentGone } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { type GraphError, type GraphFailure, graphGoneOr } from './failure.ts';
import { type GraphCalls, graphClient } from './graph-api.ts';

/** The most pages one read follows. */
const MAX_PAGES = 10;

/**
 * The Graph calls of a comments client, one client a call's signal: an object that is not
 * there (graphGoneOr; `alsoGone` adds the network's own) is CommentGone, anything else is read
 * as `failure`, the network's publishing reading, says.
 */
export function graphCommentCalls(
  runtime: PublisherRuntime,
  options: {
    baseUrl: string;
    version: string;
    label: string;
    failure: GraphFailure;
    alsoGone?: (error: GraphError) => boolean;
  },
): (signal: AbortSignal) => GraphCalls {
  const { baseUrl, version, label, alsoGone } = options;
  const gone = (message: string) => new CommentGone(message);
  const failure = graphGoneOr(label, gone, options.failure, alsoGone);
  return (signal) => graphClient(runtime, signal, { baseUrl, version, label, failure });
}

/** A Graph time (`2024-05-01T10:00:00+0000`) in epoch ms: its offset wants a colon for Date.parse. */
export const graphTime = (value: unknown): number =>
  Date.parse((asString(value) ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

/**
 * The first `limit` of what GET `path` lists, its pages followed by their `after` cursor while
 * `paging.next` says there are more (MAX_PAGES at most); `itemsOf` reads each `data` item as
 * flatMap's callback does (an empty list for an item it cannot read).
 */
export async function readGraphPages<T>(
  graph: GraphCalls,
  path: string,
  query: Record<string, string>,
  limit: number,
  itemsOf: (item: unknown) => T | readonly T[],
): Promise<T[]> {
  const found: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
    const body = await graph('GET', path, { query: { ...query, ...(after ? { after } : {}) } });
    found.push(...(Array.isArray(body.data) ? body.data : []).flatMap(itemsOf));
    const paging = isRecord(body.paging) ? body.paging : {};
    const cursors = isRecord(paging.cursors) ? paging.cursors : {};
    after = paging.next ? asString(cursors.after) : undefined;
    if (!after) break;
  }
  return found.slice(0, limit);
}
