// The reading half of the fake YouTube Data API: GET /youtube/v3/videos?part=statistics&id=…
// as Google answers it: `{ kind, items: [{ id, statistics: { viewCount, likeCount, ... } }] }`,
// the counts as strings, a hidden count left out, a video it does not know (or a test removed)
// simply missing from `items`.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import { PostNumbers } from './post-numbers.ts';

export const YOUTUBE_STATISTICS = [
  'viewCount',
  'likeCount',
  'favoriteCount',
  'commentCount',
] as const;
export type YoutubeStatistic = (typeof YOUTUBE_STATISTICS)[number];

const LIST_MAX_IDS = 50;

export function createYoutubeReading(videoIds: () => string[]) {
  const numbers = new PostNumbers(YOUTUBE_STATISTICS);
  const exists = (id: string) =>
    !numbers.isGone(id) && (numbers.has(id) || videoIds().includes(id));

  /** GET /youtube/v3/videos; a request Google refuses answers through `refuse`. */
  function list(
    response: ServerResponse,
    query: URLSearchParams,
    refuse: (reason: string, message: string) => void,
  ) {
    const parts = (query.get('part') ?? '').split(',');
    if (parts[0] === '') return refuse('required', 'Required parameter: part');
    if (!parts.every((part) => ['id', 'snippet', 'statistics', 'status'].includes(part))) {
      return refuse('unknownPart', `'${query.get('part')}'`);
    }
    const ids = (query.get('id') ?? '').split(',').filter((id) => id !== '');
    if (ids.length === 0) {
      return refuse(
        'missingRequiredParameter',
        'No filter selected. Expected one of: myRated, id, chart',
      );
    }
    if (ids.length > LIST_MAX_IDS) {
      return refuse('invalidFilters', 'Too many ids: at most 50 may be given.');
    }
    const items = ids.filter(exists).map((id) => ({
      kind: 'youtube#video',
      etag: `etag-${id}`,
      id,
      ...(parts.includes('statistics')
        ? {
            statistics: Object.fromEntries(
              Object.entries(numbers.present(id)).map(([name, value]) => [name, String(value)]),
            ),
          }
        : {}),
    }));
    sendJson(response, 200, {
      kind: 'youtube#videoListResponse',
      etag: 'etag-list',
      items,
      pageInfo: { totalResults: items.length, resultsPerPage: items.length },
    });
  }

  return { numbers, list };
}
