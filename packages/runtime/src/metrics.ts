/**
 * The Prometheus registry of one process (prom-client): what the use cases report through the
 * domain's Metrics port, HTTP latency, reconciler and token passes, and the queue's job counts
 * (BullMQ's own export, or the in-process queue's equivalent) appended at scrape time.
 */
import type { Metrics, PublishQueue } from '@social-publisher/domain';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface ProcessMetrics extends Metrics {
  /** One answered HTTP request (`route` is the route pattern, never the raw URL). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  reconciled(report: {
    postsEnqueued: number;
    leasesResumed: number;
    deliveriesEnqueued: number;
    unpublishesEnqueued: number;
  }): void;
  tokenPass(report: { refreshed: number; expired: number; failed: number }): void;
  /** The exposition text (Content-Type in `contentType`). */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Seconds: publish lateness spans from "on time" to "hours late after an outage". */
const LATENESS_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3_600];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createProcessMetrics(queue: () => PublishQueue | null): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sp_' });
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter({ name, help, labelNames, registers: [registry] });

  const http = new Histogram({
    name: 'sp_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const postsCreated = counter('sp_posts_created_total', 'Posts accepted', ['kind']);
  const targets = counter('sp_targets_finished_total', 'Targets that reached an end', [
    'platform',
    'status',
    'error_code',
  ]);
  const lateness = new Histogram({
    name: 'sp_publish_lateness_seconds',
    help: 'Start of publishing minus the scheduled time (immediate posts: minus creation)',
    buckets: LATENESS_BUCKETS,
    registers: [registry],
  });
  const webhooks = counter('sp_webhook_delivery_attempts_total', 'Webhook delivery attempts', [
    'outcome',
    'attempt',
  ]);
  const reconciles = counter(
    'sp_reconciler_enqueued_total',
    'Jobs the reconciler put (back) on the queue',
    ['kind'],
  );
  const tokens = counter('sp_token_refreshes_total', 'Proactive token renewals', ['outcome']);
  const metricReads = counter('sp_metric_reads_total', "Reads of published posts' numbers", [
    'platform',
    'outcome',
  ]);
  const metricReadLateness = new Histogram({
    name: 'sp_metric_read_lateness_seconds',
    help: 'Start of a due metrics read minus the time it was due',
    buckets: LATENESS_BUCKETS,
    registers: [registry],
  });

  return {
    contentType: registry.contentType,
    postCreated: ({ scheduled }) => postsCreated.inc({ kind: scheduled ? 'scheduled' : 'now' }),
    publishStarted: (latenessMs) => lateness.observe(Math.max(0, latenessMs) / 1000),
    targetFinished: (platform, status, errorCode) =>
      targets.inc({ platform, status, error_code: errorCode ?? '' }),
    // Attempts past 10 share one label value, so the series stay few.
    webhookAttempt: (outcome, attempt) =>
      webhooks.inc({ outcome, attempt: attempt > 10 ? '10+' : String(attempt) }),
    metricsRead: (platform, outcome, count) => metricReads.inc({ platform, outcome }, count),
    metricsReadLate: (latenessMs) => metricReadLateness.observe(Math.max(0, latenessMs) / 1000),
    httpRequest: (method, route, status, seconds) =>
      http.observe({ method, route, status: String(status) }, seconds),
    reconciled: (report) => {
      if (report.postsEnqueued > 0) reconciles.inc({ kind: 'post' }, report.postsEnqueued);
      if (report.leasesResumed > 0) reconciles.inc({ kind: 'lease' }, report.leasesResumed);
      if (report.deliveriesEnqueued > 0) {
        reconciles.inc({ kind: 'delivery' }, report.deliveriesEnqueued);
      }
      if (report.unpublishesEnqueued > 0) {
        reconciles.inc({ kind: 'unpublish' }, report.unpublishesEnqueued);
      }
    },
    tokenPass: (report) => {
      for (const outcome of ['refreshed', 'expired', 'failed'] as const) {
        if (report[outcome] > 0) tokens.inc({ outcome }, report[outcome]);
      }
    },
    async render() {
      const own = await registry.metrics();
      // Queue counts need the queue's backing service: a scrape during an outage still answers.
      const counts = await queue()
        ?.prometheusMetrics?.()
        .catch(() => '');
      return counts ? `${own}${counts}` : own;
    },
  };
}
