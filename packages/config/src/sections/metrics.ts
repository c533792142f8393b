/**
 * Metrics over time: when published posts' numbers are read, and how long they are kept; and
 * when their comments are read (the same kind of schedule), and how long a reply may be on its way.
 */
import {
  COMMENTS_REFRESH_SCHEDULE_MS,
  METRICS_PASS_SIZE,
  METRICS_REFRESH_SCHEDULE_MS,
  METRICS_SCHEDULE_MAX_OFFSET_MS,
  METRICS_SCHEDULE_MAX_STEPS,
  REPLY_IN_FLIGHT_MS,
} from '@social-publisher/domain';
import type { Env } from '../env-readers.ts';

export interface MetricsConfig {
  postMetrics: {
    /** METRICS_REFRESH_SCHEDULE: offsets after publication, ascending (empty: `off`). */
    refreshScheduleMs: number[];
    /** METRICS_MIN_REFRESH_S in ms: a refresh does not read a target read more recently. */
    minRefreshMs: number;
    /** METRICS_RETENTION_DAYS in ms. */
    retentionMs: number;
    /** METRICS_READ_INTERVAL_MS: how often a worker looks for due reads. */
    readIntervalMs: number;
    /** METRICS_PASS_SIZE: due reads one pass claims. */
    passSize: number;
    /** METRICS_READ_CONCURRENCY: connections one pass reads at the same time. */
    readConcurrency: number;
  };
  postComments: {
    /** COMMENTS_REFRESH_SCHEDULE: offsets after publication, ascending (empty: `off`). */
    refreshScheduleMs: number[];
    /**
     * REPLY_IN_FLIGHT_MS: how long a reply's request may be running; an older `sending` reply
     * is looked for on the platform (each platform call of a reply gets half of it, at most 60 s).
     */
    replyInFlightMs: number;
  };
}

const UNIT_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const OFFSET = /^([1-9]\d{0,5})(m|h|d)$/;
const DAY_MS = 86_400_000;

/** `1h,6h,24h,72h,7d,30d` as milliseconds, or why it is not a schedule. */
export function parseRefreshSchedule(text: string): number[] | string {
  if (text.trim() === 'off') return [];
  const offsets: number[] = [];
  for (const part of text.split(',').map((item) => item.trim())) {
    const match = OFFSET.exec(part);
    if (!match) return `"${part}" is not an offset like 90m, 6h or 7d`;
    const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
    if (ms > METRICS_SCHEDULE_MAX_OFFSET_MS) return `"${part}" is later than 400d`;
    if (offsets.length > 0 && ms <= (offsets.at(-1) ?? 0)) return 'offsets must be ascending';
    offsets.push(ms);
  }
  if (offsets.length > METRICS_SCHEDULE_MAX_STEPS) {
    return `at most ${METRICS_SCHEDULE_MAX_STEPS} offsets`;
  }
  return offsets;
}

/** A schedule setting (METRICS_REFRESH_SCHEDULE, COMMENTS_REFRESH_SCHEDULE) or its default. */
function readSchedule(e: Env, name: string, fallback: readonly number[]): number[] {
  const text = e.string(name);
  if (text === null) return [...fallback];
  const parsed = parseRefreshSchedule(text);
  if (typeof parsed === 'string') return e.report(name, `${parsed} (or off)`, [...fallback]);
  return parsed;
}

export function readMetrics(e: Env): MetricsConfig {
  return {
    postMetrics: {
      refreshScheduleMs: readSchedule(e, 'METRICS_REFRESH_SCHEDULE', METRICS_REFRESH_SCHEDULE_MS),
      minRefreshMs: e.int('METRICS_MIN_REFRESH_S', 60, 0, 86_400) * 1000,
      retentionMs: e.int('METRICS_RETENTION_DAYS', 400, 1, 36_500) * DAY_MS,
      readIntervalMs: e.int('METRICS_READ_INTERVAL_MS', 5_000, 100, 600_000),
      passSize: e.int('METRICS_PASS_SIZE', METRICS_PASS_SIZE, 1, 10_000),
      readConcurrency: e.int('METRICS_READ_CONCURRENCY', 4, 1, 64),
    },
    postComments: {
      refreshScheduleMs: readSchedule(e, 'COMMENTS_REFRESH_SCHEDULE', COMMENTS_REFRESH_SCHEDULE_MS),
      replyInFlightMs: e.int('REPLY_IN_FLIGHT_MS', REPLY_IN_FLIGHT_MS, 2_000, 3_600_000),
    },
  };
}
