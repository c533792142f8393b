// The numbers of published YouTube videos (docs/platforms.md#youtube; developers.google.com
// "Videos: list"): GET /youtube/v3/videos?part=statistics&id=… for up to 50 videos, one quota
// unit a call. YouTube gives the counts as strings and leaves out one the owner hides (likes):
// null then; a video missing from `items` is deleted (or no longer visible): gone.
import type { PlatformMetricsReader } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, asString, isRecord } from '../shared/http.ts';
import { goneResult, metricsFrom, rawOf, readBatch, readResult } from '../shared/metrics-read.ts';
import { youtubeFailure } from './failure.ts';
import type { YoutubeSettings } from './settings.ts';

/** videos.list takes at most 50 ids. */
const YOUTUBE_LIST_BATCH = 50;
const STATISTICS_KEYS = ['viewCount', 'likeCount', 'dislikeCount', 'favoriteCount', 'commentCount'];

export function createYoutubeMetricsReader(
  config: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return {
    batchSize: YOUTUBE_LIST_BATCH,
    reports: ['views', 'likes', 'comments'],
    scopes: ['https://www.googleapis.com/auth/youtube.readonly'],
    read: ({ connection, items, signal }) =>
      readBatch(async () => {
        const ids = [...new Set(items.map((item) => item.platformPostId))];
        const url = new URL(`${config.apiBaseUrl}/youtube/v3/videos`);
        url.searchParams.set('part', 'statistics');
        url.searchParams.set('id', ids.join(','));
        const response = await apiCall(
          runtime,
          signal,
          {
            url,
            method: 'GET',
            headers: { authorization: `Bearer ${connection.accessToken}` },
          },
          'YouTube videos.list',
        );
        if (response.status < 200 || response.status >= 300) throw youtubeFailure(response);
        const listed = isRecord(response.json) && Array.isArray(response.json.items);
        const videos = listed ? (response.json as { items: unknown[] }).items.filter(isRecord) : [];
        const statistics = new Map(
          videos.map((video) => [
            asString(video.id) ?? '',
            isRecord(video.statistics) ? video.statistics : {},
          ]),
        );
        return new Map(
          items.map((item) => {
            const found = statistics.get(item.platformPostId);
            const result = found
              ? readResult(
                  metricsFrom(found, {
                    views: 'viewCount',
                    likes: 'likeCount',
                    comments: 'commentCount',
                  }),
                  rawOf(found, STATISTICS_KEYS),
                )
              : goneResult(
                  'YouTube lists no such video: deleted, or no longer visible to this channel',
                );
            return [item.targetId, result];
          }),
        );
      }),
  };
}
