// The numbers of a published Facebook Page post (docs/platforms.md#facebook; developers.facebook.com
// "Page Post", "Object Reactions", "Object Comments"): one GET per post with the Page token,
// GET /{post-id}?fields=reactions.summary(total_count).limit(0),
// comments.summary(total_count).limit(0),shares
// -> { reactions: { summary: { total_count } }, comments: { summary: { total_count } }, shares?: { count } }.
// Graph leaves `shares` out of a post nobody shared: that is 0 shares, not an unknown. A video
// (the publisher's id for a video post is the video's own) has no `shares` field: null there.
import {
  type MetricsItemResult,
  noMetrics,
  type PlatformMetricsReader,
} from '@social-publisher/domain';
import { graphClient } from '../meta/graph-api.ts';
import { graphMetricsFailure } from '../meta/insights.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { isRecord } from '../shared/http.ts';
import { countOf } from '../shared/metrics-read.ts';
import { readEach } from '../shared/single-read.ts';
import { facebookFailure } from './api.ts';
import type { FacebookSettings } from './settings.ts';

/** Reading reactions and comments of the Page's own posts (Page token, "Object Reactions"). */
export const FACEBOOK_ENGAGEMENT_SCOPE = 'pages_read_engagement';

const SUMMARY_FIELDS = [
  'reactions.summary(total_count).limit(0)',
  'comments.summary(total_count).limit(0)',
];

/** A Page post's id is `{page-id}_{post-id}`; a bare number is a video (or a photo). */
const isPagePost = (id: string): boolean => id.includes('_');

/** `{ summary: { total_count } }` -> the count (null when Graph gave none). */
const totalOf = (edge: unknown): number | null =>
  isRecord(edge) && isRecord(edge.summary) ? countOf(edge.summary.total_count) : null;

export function createFacebookMetricsReader(
  settings: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  const failure = graphMetricsFailure({
    label: 'Facebook',
    scope: FACEBOOK_ENGAGEMENT_SCOPE,
    otherwise: facebookFailure,
  });
  return {
    batchSize: 1,
    reports: ['likes', 'comments', 'shares'],
    scopes: [FACEBOOK_ENGAGEMENT_SCOPE],
    read: (request) => {
      const graph = graphClient(runtime, request.signal, {
        baseUrl: settings.apiBaseUrl,
        version: settings.graphVersion,
        label: 'Facebook',
        failure,
      });
      // The connection's token is the Page token the publisher posts with.
      const token = request.connection.accessToken;
      return readEach(request, async (item): Promise<MetricsItemResult> => {
        const post = isPagePost(item.platformPostId);
        const fields = post ? [...SUMMARY_FIELDS, 'shares'] : SUMMARY_FIELDS;
        const body = await graph('GET', `/${encodeURIComponent(item.platformPostId)}`, {
          query: { fields: fields.join(','), access_token: token },
        });
        const { reactions, comments, shares } = body;
        const metrics = noMetrics();
        metrics.likes = totalOf(reactions);
        metrics.comments = totalOf(comments);
        if (post) metrics.shares = isRecord(shares) ? countOf(shares.count) : 0;
        const raw: Record<string, unknown> = { reactions, comments };
        if (shares !== undefined) raw.shares = shares;
        return { kind: 'read', metrics, raw };
      });
    },
  };
}
