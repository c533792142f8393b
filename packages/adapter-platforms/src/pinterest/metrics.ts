// The numbers of a published Pin (docs/platforms.md#pinterest; developers.pinterest.com "Get Pin
// analytics", "Organic analytics"): GET /v5/pins/{pin_id}/analytics?start_date&end_date
// &metric_types=IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK -> { all: { lifetime_metrics } }, one
// call per Pin. Pinterest serves the last 90 days only: the window starts at the later of the
// publishing day and 89 days before today (UTC), and ends today.
import {
  type MetricsItemResult,
  noMetrics,
  type PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { type BearerFailure, bearerClient } from '../shared/bearer-call.ts';
import { isRecord } from '../shared/http.ts';
import { countOf } from '../shared/metrics-read.ts';
import { ItemRefusal, readEach, reconnectFor } from '../shared/single-read.ts';
import { pinterestFailure } from './api.ts';
import type { PinterestSettings } from './settings.ts';

export const PINTEREST_READ_SCOPE = 'pins:read';
const METRIC_TYPES = 'IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK';
const DAY_MS = 86_400_000;
/** Days before today the window may start: with today, Pinterest's 90 days. */
const LOOKBACK_DAYS = 89;

const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** The analytics window of a Pin published at `publishedAt`, read at `now` (YYYY-MM-DD, UTC). */
export function analyticsWindow(
  publishedAt: Date,
  now: Date,
): { start: string; end: string; wholeLife: boolean } {
  const today = Date.parse(dayOf(now.getTime()));
  const earliest = today - LOOKBACK_DAYS * DAY_MS;
  const published = Math.min(Date.parse(dayOf(publishedAt.getTime())), today);
  const start = Math.max(published, earliest);
  return { start: dayOf(start), end: dayOf(today), wholeLife: start === published };
}

/** 404: the Pin is gone; 403: a permission; the rest as publishing reads it (401, 429...). */
const readFailure: BearerFailure = (response, what) => {
  const body = isRecord(response.json) ? response.json : {};
  const said = `${what}: HTTP ${response.status}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
  if (response.status === 404) return new ItemRefusal({ kind: 'gone', message: said });
  if (response.status === 403) {
    const message = reconnectFor('Pinterest', PINTEREST_READ_SCOPE, said);
    return new ItemRefusal({ kind: 'unavailable', message });
  }
  return pinterestFailure(response, what);
};

/**
 * The Pin's counts: `lifetime_metrics`; without them, `summary_metrics` when the window holds
 * the Pin's whole life (the sum over it is then its lifetime), else nothing.
 */
function countsOf(body: unknown, wholeLife: boolean): Record<string, unknown> | null {
  const all = isRecord(body) && isRecord(body.all) ? body.all : {};
  if (isRecord(all.lifetime_metrics)) return all.lifetime_metrics;
  return wholeLife && isRecord(all.summary_metrics) ? all.summary_metrics : null;
}

export function createPinterestMetricsReader(
  settings: PinterestSettings,
  runtime: PublisherRuntime,
  clock: () => Date = () => new Date(),
): PlatformMetricsReader {
  return {
    batchSize: 1,
    reports: ['impressions', 'saves', 'clicks'],
    scopes: [PINTEREST_READ_SCOPE],
    read: (request) => {
      const call = bearerClient(runtime, request.signal, {
        baseUrl: settings.apiBaseUrl,
        label: 'Pinterest',
        failure: readFailure,
      });
      const token = request.connection.accessToken;
      return readEach(request, async (item): Promise<MetricsItemResult> => {
        const window = analyticsWindow(item.publishedAt, clock());
        const query = new URLSearchParams({
          start_date: window.start,
          end_date: window.end,
          metric_types: METRIC_TYPES,
        });
        const path = `/v5/pins/${encodeURIComponent(item.platformPostId)}/analytics?${query}`;
        const response = await call('GET', path, token, `Pin ${item.platformPostId} analytics`);
        const counts = countsOf(response.json, window.wholeLife);
        const metrics = noMetrics();
        metrics.impressions = countOf(counts?.IMPRESSION);
        metrics.saves = countOf(counts?.SAVE);
        metrics.clicks = countOf(counts?.OUTBOUND_CLICK);
        return { kind: 'read', metrics, raw: counts ?? {} };
      });
    },
  };
}
