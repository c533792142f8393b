// The numbers of a published Instagram media (docs/platforms.md#instagram; developers.facebook.com
// "IG Media Insights"): GET /{ig-media-id}/insights?metric=views,reach,likes,comments,shares,saved,
// one call per media; a metric Instagram does not give for this media type stays null.
import type { PlatformMetricsReader } from '@social-publisher/domain';
import { graphInsightsReader } from '../meta/insights.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { graphFailure } from './api.ts';
import { INSTAGRAM_INSIGHTS_SCOPE } from './oauth.ts';
import type { InstagramSettings } from './settings.ts';

export function createInstagramMetricsReader(
  settings: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return graphInsightsReader(runtime, {
    label: 'Instagram',
    baseUrl: settings.apiBaseUrl,
    version: settings.graphVersion,
    metrics: {
      views: 'views',
      reach: 'reach',
      likes: 'likes',
      comments: 'comments',
      shares: 'shares',
      saves: 'saved',
    },
    scope: INSTAGRAM_INSIGHTS_SCOPE,
    publishFailure: graphFailure,
  });
}
