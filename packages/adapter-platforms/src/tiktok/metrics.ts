// The numbers of published TikTok videos (docs/platforms.md#tiktok; developers.tiktok.com
// "Query Videos"): POST /v2/video/query/?fields=… with up to 20 video ids, scope video.list. The
// publisher stores TikTok's public video id when the publish status gave one, else the publish
// id: that one is asked of /v2/post/publish/status/fetch/ again for the public id (a draft or a
// private video has none: no numbers). A video missing from `videos` is deleted: gone.
import type {
  MetricsItemResult,
  MetricsReadItem,
  PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString } from '../shared/http.ts';
import { goneResult, metricsFrom, rawOf, readBatch, readResult } from '../shared/metrics-read.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { createTiktokApi } from './api.ts';
import type { TiktokSettings } from './settings.ts';

/** /v2/video/query/ takes at most 20 video ids. */
const TIKTOK_QUERY_BATCH = 20;
const FIELDS = ['id', 'view_count', 'like_count', 'comment_count', 'share_count'] as const;
const SCOPE = 'video.list';

type TiktokApi = ReturnType<typeof createTiktokApi>;

/** A platform failure as one item's result; anything else (token, wait) ends the batch. */
function itemFailure(error: unknown): MetricsItemResult {
  if (error instanceof PublishFailure && error.outcome.kind === 'failed') {
    return { kind: 'failed', code: error.outcome.code, message: error.outcome.message };
  }
  throw error;
}

const scopeRefused = (error: unknown): boolean =>
  error instanceof PublishFailure &&
  error.outcome.kind === 'failed' &&
  error.outcome.code === 'scope_not_authorized';

export function createTiktokMetricsReader(
  config: TiktokSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return {
    batchSize: TIKTOK_QUERY_BATCH,
    reports: ['views', 'likes', 'comments', 'shares'],
    scopes: [SCOPE],
    read: ({ connection, items, signal }) =>
      readBatch(async () => {
        const api = createTiktokApi(config, runtime, signal);
        const token = connection.accessToken;
        const results = new Map<string, MetricsItemResult>();
        const videoIds = new Map<string, string>();
        for (const item of items) {
          const found = await videoIdOf(api, token, item);
          if (typeof found === 'string') videoIds.set(item.targetId, found);
          else results.set(item.targetId, found);
        }
        if (videoIds.size === 0) return results;
        let videos: Record<string, unknown>[];
        try {
          videos = await api.queryVideos(token, [...new Set(videoIds.values())], FIELDS);
        } catch (error) {
          if (!scopeRefused(error)) throw error;
          // A token granted before video.list was asked: only a reconnect brings it.
          const message = `the connection was made without ${SCOPE}, which reading numbers needs: reconnect the account`;
          for (const targetId of videoIds.keys())
            results.set(targetId, { kind: 'unavailable', message });
          return results;
        }
        const byId = new Map(videos.map((video) => [asString(video.id) ?? '', video]));
        for (const [targetId, videoId] of videoIds) {
          const video = byId.get(videoId);
          results.set(
            targetId,
            video
              ? readResult(
                  metricsFrom(video, {
                    views: 'view_count',
                    likes: 'like_count',
                    comments: 'comment_count',
                    shares: 'share_count',
                  }),
                  rawOf(video, FIELDS),
                )
              : goneResult(`TikTok returns no video ${videoId}: it was deleted`),
          );
        }
        return results;
      }),
  };
}

/**
 * The public video id of a published item: the stored id when it is one (digits), else the
 * one the publish status gives now; a result when there is none.
 */
async function videoIdOf(
  api: TiktokApi,
  token: string,
  item: MetricsReadItem,
): Promise<string | MetricsItemResult> {
  if (/^\d+$/.test(item.platformPostId)) return item.platformPostId;
  let publicId: string | undefined;
  try {
    publicId = (await api.status(token, item.platformPostId)).publicPostIds[0];
  } catch (error) {
    return itemFailure(error);
  }
  if (publicId !== undefined) return publicId;
  return {
    kind: 'unavailable',
    message:
      'TikTok has not made the video public (a draft, a private video, or still processing): no numbers',
  };
}
