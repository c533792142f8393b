import { createHash } from 'node:crypto';
import { METRIC_NAMES, type MetricName, type MetricValues, noMetrics } from '../metrics-model.ts';

/** Per 1,000 views, how much of each other number a sandbox post gets (views: the base). */
const SHARE_PER_VIEW: Record<MetricName, number> = {
  views: 1,
  impressions: 1.6,
  reach: 0.8,
  likes: 0.08,
  comments: 0.012,
  shares: 0.006,
  quotes: 0.002,
  saves: 0.01,
  clicks: 0.02,
};

/**
 * Made-up numbers for a sandbox target (no platform is called): the same target at the same age
 * always gets the same numbers, and they only grow with age, so clients can test charts and
 * events. Only the numbers the platform reports are set (the others stay null, as on the
 * platform).
 */
export function sandboxMetrics(
  targetId: string,
  publishedAt: Date,
  at: Date,
  reports: readonly MetricName[] = METRIC_NAMES,
): { metrics: MetricValues; raw: Record<string, unknown> } {
  const seed = createHash('sha256').update(targetId).digest().readUInt16BE(0);
  const hours = Math.max(0, (at.getTime() - publishedAt.getTime()) / 3_600_000);
  // Fast at first, slower later, like a real post: views ∝ log2(1 + hours).
  const views = Math.floor((200 + (seed % 800)) * Math.log2(1 + hours));
  const metrics = noMetrics();
  for (const name of reports) metrics[name] = Math.floor(views * SHARE_PER_VIEW[name]);
  return { metrics, raw: { sandbox: true, age_hours: Math.round(hours * 100) / 100 } };
}
