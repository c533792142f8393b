// Reading a published post's numbers on Meta's Graph API (Instagram, Facebook, Threads): the
// refusals that concern the post alone (gone, a permission missing), the throttles with Meta's
// own wait, and the insights edge Instagram and Threads share:
// GET /{media-id}/insights?metric=a,b -> { data: [{ name, period, values: [{ value }] }] }
// (developers.facebook.com "IG Media Insights", "Threads API: Insights").
import {
  type MetricName,
  type MetricsItemResult,
  noMetrics,
  type PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { isRecord } from '../shared/http.ts';
import { countOf } from '../shared/metrics-read.ts';
import { throttled } from '../shared/rate-limit.ts';
import { ItemRefusal, readEach, reconnectFor } from '../shared/single-read.ts';
import { type GraphFailure, graphErrorOf, metaUsageRetryAt } from './failure.ts';
import { graphClient } from './graph-api.ts';

/** Graph's rate limits: 4 application, 17 user, 32 Page, 613 custom (read without a subcode). */
const READ_THROTTLE_CODES: ReadonlySet<number> = new Set([4, 17, 32, 613]);
/** Instagram: "Media posted before business account conversion" has no insights (code 10). */
const BEFORE_CONVERSION_SUBCODE = 2108006;

export interface GraphMetricsRefusals {
  label: string;
  /** The permission the read needs, named in the reconnect message. */
  scope: string;
  /** Everything else is read as the network's publishing reads it (190, 5xx, its codes...). */
  otherwise: GraphFailure;
}

/**
 * A refused read: code 100 subcode 33 (the object does not exist) -> the post is gone; code 10
 * or 200-299 (a permission) -> unavailable, reconnect to grant `scope`; 4/17/32/613 -> wait as
 * Meta's usage headers say; the rest as `otherwise` (190 a refused token, 5xx failed...).
 */
export function graphMetricsFailure(refusals: GraphMetricsRefusals): GraphFailure {
  const { label, scope } = refusals;
  return (status, body, text, headers = {}) => {
    const error = graphErrorOf(body);
    if (error) {
      const said = error.message ?? `error ${error.code}`;
      if (error.code === 100 && error.subcode === 33) {
        return new ItemRefusal({ kind: 'gone', message: `${label}: ${said}` });
      }
      if (error.code === 10 && error.subcode === BEFORE_CONVERSION_SUBCODE) {
        return new ItemRefusal({ kind: 'unavailable', message: `${label}: ${said}` });
      }
      if (error.code === 10 || (error.code >= 200 && error.code <= 299)) {
        const message = reconnectFor(label, scope, `Graph error ${error.code}: ${said}`);
        return new ItemRefusal({ kind: 'unavailable', message });
      }
      if (!Number.isFinite(error.subcode) && READ_THROTTLE_CODES.has(error.code)) {
        return throttled(String(error.code), `${label}: ${said}`, metaUsageRetryAt(headers));
      }
    }
    return refusals.otherwise(status, body, text, headers);
  };
}

/** `{ data: [{ name, values: [{ value }] }] }` -> name -> value, as Graph gave it. */
export function insightValues(body: Record<string, unknown>): Record<string, unknown> {
  const data = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
  const values: Record<string, unknown> = {};
  for (const entry of data) {
    if (typeof entry.name !== 'string') continue;
    const first = Array.isArray(entry.values) ? entry.values[0] : undefined;
    // Newer metrics may come as `total_value: { value }` instead of a one-value list.
    const total = isRecord(entry.total_value) ? entry.total_value.value : undefined;
    values[entry.name] = isRecord(first) ? first.value : total;
  }
  return values;
}

export interface GraphInsightsSpec {
  label: string;
  baseUrl: string;
  version: string;
  /** Our name -> the network's metric name (asked for in this order). */
  metrics: Partial<Record<MetricName, string>>;
  /** Metrics asked for as well and kept in `raw` only (no name of ours fits them). */
  rawOnly?: readonly string[];
  scope: string;
  /** How the network reads a refusal when publishing (its throttle and token codes). */
  publishFailure: GraphFailure;
}

/**
 * The reader of a network whose posts answer GET /{media-id}/insights: one call per post, the
 * token in the query; a metric the network leaves out for this media is null.
 */
export function graphInsightsReader(
  runtime: PublisherRuntime,
  spec: GraphInsightsSpec,
): PlatformMetricsReader {
  const entries = Object.entries(spec.metrics) as Array<[MetricName, string]>;
  const asked = [...entries.map(([, theirs]) => theirs), ...(spec.rawOnly ?? [])].join(',');
  const failure = graphMetricsFailure({
    label: spec.label,
    scope: spec.scope,
    otherwise: spec.publishFailure,
  });
  return {
    batchSize: 1,
    reports: entries.map(([ours]) => ours),
    scopes: [spec.scope],
    read: (request) => {
      const graph = graphClient(runtime, request.signal, { ...spec, failure });
      const token = request.connection.accessToken;
      return readEach(request, async (item): Promise<MetricsItemResult> => {
        const body = await graph('GET', `/${encodeURIComponent(item.platformPostId)}/insights`, {
          query: { metric: asked, access_token: token },
        });
        const raw = insightValues(body);
        const metrics = noMetrics();
        for (const [ours, theirs] of entries) metrics[ours] = countOf(raw[theirs]);
        return { kind: 'read', metrics, raw };
      });
    },
  };
}
