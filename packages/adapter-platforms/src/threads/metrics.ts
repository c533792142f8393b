// The numbers of a published Threads post (docs/platforms.md#threads; developers.facebook.com
// "Threads API: Insights"): GET /v1.0/{threads-media-id}/insights?metric=views,likes,replies,
// reposts,quotes,shares, one call per post. Replies count as comments and reposts as shares;
// Threads' own `shares` (sent to someone) stays in `raw` only.
import type { PlatformMetricsReader } from '@social-publisher/domain';
import { graphInsightsReader } from '../meta/insights.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { THREADS_API_VERSION, threadsFailure } from './api.ts';
import { THREADS_INSIGHTS_SCOPE } from './oauth.ts';
import type { ThreadsSettings } from './settings.ts';

export function createThreadsMetricsReader(
  settings: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return graphInsightsReader(runtime, {
    label: 'Threads',
    baseUrl: settings.apiBaseUrl,
    version: THREADS_API_VERSION,
    metrics: {
      views: 'views',
      likes: 'likes',
      comments: 'replies',
      shares: 'reposts',
      quotes: 'quotes',
    },
    rawOnly: ['shares'],
    scope: THREADS_INSIGHTS_SCOPE,
    publishFailure: threadsFailure,
  });
}
