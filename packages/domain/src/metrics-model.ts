import type { Platform } from './model.ts';
import type { ReadTrack } from './read-track.ts';

/**
 * The numbers of a published post, under one name whatever the platform calls them. Each is a
 * non-negative integer, or null when the platform does not report it: never 0 for "unknown".
 */
export const METRIC_NAMES = [
  'views',
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'quotes',
  'saves',
  'clicks',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];
export type MetricValues = Record<MetricName, number | null>;

/**
 * Where a target's numbers stand: `pending` (not read yet), `fresh` (the last read worked),
 * `stale` (the last read failed: older numbers shown, `error` says why), `unavailable` (the
 * platform offers no numbers for it) or `gone` (the platform says the post no longer exists;
 * refreshing stops).
 */
export const METRICS_STATES = ['pending', 'fresh', 'stale', 'unavailable', 'gone'] as const;
export type MetricsState = (typeof METRICS_STATES)[number];

/** Every name null: what a platform that reports nothing would give. */
export function noMetrics(): MetricValues {
  return Object.fromEntries(METRIC_NAMES.map((name) => [name, null])) as MetricValues;
}

/**
 * One published target followed for its numbers: created when the target publishes, holding the
 * latest read (so the latest numbers never need the history) and when the next read is due.
 */
export interface MetricTrack extends ReadTrack<MetricsState> {
  /** When the latest numbers were read; null: never. */
  takenAt: Date | null;
  metrics: MetricValues | null;
}

/** One read of one target's numbers at one time, kept append-only. */
export interface MetricSnapshot {
  id: string;
  targetId: string;
  takenAt: Date;
  metrics: MetricValues;
  /** The platform's own names and values as read. */
  raw: Record<string, unknown>;
  sandbox: boolean;
}

/** One day (UTC) of `published_at` in GET /analytics/daily. */
export interface DailyMetrics {
  /** YYYY-MM-DD. */
  date: string;
  /** Posts with a target published that day. */
  posts: number;
  metrics: MetricValues;
}

/** What GET /analytics/daily sums: one connection, or every connection of one account. */
export interface DailyQuery {
  accountId: string;
  socialAccountId?: string;
  platform?: Platform;
  /** First and last day, inclusive (midnight UTC). */
  from: Date;
  to: Date;
}
