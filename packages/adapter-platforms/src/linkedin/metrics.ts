// The numbers of a published LinkedIn post (docs/platforms.md#linkedin; learn.microsoft.com/linkedin
// "Network Update Social Actions", "Organization Share Statistics"), one post at a time:
// - GET /rest/socialActions/{post urn} -> likesSummary.totalLikes, commentsSummary.aggregatedTotalComments;
// - for an organization's post also GET /rest/organizationalEntityShareStatistics
//   ?q=organizationalEntity&organizationalEntity={org}&shares=List({urn}) (ugcPosts=List for a
//   ugcPost URN) -> totalShareStatistics: impressions, unique impressions (reach), clicks, reshares.
// LinkedIn gives share statistics for organizations only, over the last 12 months.
import {
  type MetricsItemResult,
  type MetricValues,
  noMetrics,
  type PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { type BearerFailure, bearerClient } from '../shared/bearer-call.ts';
import { isRecord } from '../shared/http.ts';
import { countOf } from '../shared/metrics-read.ts';
import { ItemRefusal, readEach, reconnectFor } from '../shared/single-read.ts';
import { linkedinFailure } from './failure.ts';
import { LINKEDIN_ORGANIZATION_READ_SCOPE } from './oauth.ts';
import { authorOf } from './run.ts';
import type { LinkedinSettings } from './settings.ts';

/** Reading a member's own posts: LinkedIn grants it to approved apps only (not asked at connect). */
const MEMBER_READ_SCOPE = 'r_member_social';
/** Reading an organization's share statistics (asked for with the organization scopes). */
const STATISTICS_SCOPE = 'rw_organization_admin';

/** A refusal of the read: 404 the post is gone (where `gone`), 403 a permission, else as publishing. */
function readFailure(scope: string, gone: boolean): BearerFailure {
  return (response, what) => {
    const body = isRecord(response.json) ? response.json : {};
    const said = `${what}: HTTP ${response.status}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
    if (gone && response.status === 404) return new ItemRefusal({ kind: 'gone', message: said });
    if (response.status === 403) {
      const approved =
        scope === MEMBER_READ_SCOPE ? '; LinkedIn grants it to approved apps only' : '';
      const message = `${reconnectFor('LinkedIn', scope, said)}${approved}`;
      return new ItemRefusal({ kind: 'unavailable', message });
    }
    return linkedinFailure(response, what);
  };
}

/** `{ elements: [{ totalShareStatistics }] }` -> its counts (null when LinkedIn gave none). */
function statisticsOf(body: unknown): Record<string, unknown> | null {
  const elements = isRecord(body) && Array.isArray(body.elements) ? body.elements : [];
  const first = elements.find(isRecord);
  return first && isRecord(first.totalShareStatistics) ? first.totalShareStatistics : null;
}

export function createLinkedinMetricsReader(
  settings: LinkedinSettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return {
    batchSize: 1,
    reports: ['likes', 'comments', 'impressions', 'reach', 'clicks', 'shares'],
    // Which scope a read needs depends on the post's author (a member's or an organization's):
    // none is asked of every connection; a 403 says which one is missing.
    scopes: [],
    read: (request) => {
      const rest = bearerClient(runtime, request.signal, {
        baseUrl: settings.apiBaseUrl,
        label: 'LinkedIn',
        headers: { 'linkedin-version': settings.apiVersion, 'x-restli-protocol-version': '2.0.0' },
        failure: linkedinFailure,
      });
      const token = request.connection.accessToken;
      const author = authorOf(request.connection.externalId);
      const organization = author.startsWith('urn:li:organization:');

      async function socialActions(urn: string) {
        const scope = organization ? LINKEDIN_ORGANIZATION_READ_SCOPE : MEMBER_READ_SCOPE;
        const path = `/rest/socialActions/${encodeURIComponent(urn)}`;
        const response = await rest('GET', path, token, `social actions of ${urn}`, {
          failure: readFailure(scope, true),
        });
        return isRecord(response.json) ? response.json : {};
      }

      async function shareStatistics(urn: string) {
        const list = urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
        const path =
          `/rest/organizationalEntityShareStatistics?q=organizationalEntity` +
          `&organizationalEntity=${encodeURIComponent(author)}&${list}=List(${encodeURIComponent(urn)})`;
        const response = await rest('GET', path, token, `share statistics of ${urn}`, {
          failure: readFailure(STATISTICS_SCOPE, false),
        });
        return statisticsOf(response.json);
      }

      return readEach(request, async (item): Promise<MetricsItemResult> => {
        const urn = item.platformPostId;
        const actions = await socialActions(urn);
        const likes = isRecord(actions.likesSummary) ? actions.likesSummary : {};
        const comments = isRecord(actions.commentsSummary) ? actions.commentsSummary : {};
        const metrics: MetricValues = noMetrics();
        metrics.likes = countOf(likes.totalLikes);
        metrics.comments = countOf(comments.aggregatedTotalComments);
        const raw: Record<string, unknown> = {
          likesSummary: actions.likesSummary,
          commentsSummary: actions.commentsSummary,
        };
        if (organization) {
          const statistics = await shareStatistics(urn);
          raw.totalShareStatistics = statistics;
          metrics.impressions = countOf(statistics?.impressionCount);
          metrics.reach = countOf(statistics?.uniqueImpressionsCount);
          metrics.clicks = countOf(statistics?.clickCount);
          metrics.shares = countOf(statistics?.shareCount);
        }
        return { kind: 'read', metrics, raw };
      });
    },
  };
}
