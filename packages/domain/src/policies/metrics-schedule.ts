/**
 * When a published post's numbers are read: at offsets after its publication
 * (METRICS_REFRESH_SCHEDULE), each moved by up to ±10 % so that the posts of one busy minute
 * are not all read in the same later minute; after the last offset, only when asked.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** METRICS_REFRESH_SCHEDULE's default: 1h, 6h, 24h, 72h, 7d, 30d. */
export const METRICS_REFRESH_SCHEDULE_MS: readonly number[] = [
  HOUR_MS,
  6 * HOUR_MS,
  24 * HOUR_MS,
  72 * HOUR_MS,
  7 * DAY_MS,
  30 * DAY_MS,
];

/**
 * COMMENTS_REFRESH_SCHEDULE's default: 15m, 1h, 6h, 24h, 72h, 7d. Comments come soon after a
 * post and then slow down; the same rule (nextScheduledRead) places each read.
 */
export const COMMENTS_REFRESH_SCHEDULE_MS: readonly number[] = [
  15 * 60_000,
  HOUR_MS,
  6 * HOUR_MS,
  24 * HOUR_MS,
  72 * HOUR_MS,
  7 * DAY_MS,
];

/** Each scheduled read moves by at most this share of its offset, either way. */
export const METRICS_SCHEDULE_JITTER = 0.1;

/** The longest refresh schedule offset accepted (METRICS_REFRESH_SCHEDULE). */
export const METRICS_SCHEDULE_MAX_OFFSET_MS = 400 * DAY_MS;

/** The most offsets a schedule may have. */
export const METRICS_SCHEDULE_MAX_STEPS = 50;

export interface ScheduledRead {
  /** The schedule offset this read stands for (the schedule's length: none left). */
  step: number;
  dueAt: Date | null;
}

/**
 * The next scheduled read of a post published at `publishedAt`, from offset `fromStep` on, after
 * a read (or the publication) at `at`: the first offset whose earliest jittered time is still
 * ahead, so a read taken early within its jitter still consumes its own offset.
 */
export function nextScheduledRead(
  publishedAt: Date,
  fromStep: number,
  at: Date,
  scheduleMs: readonly number[],
  random: () => number = Math.random,
): ScheduledRead {
  const published = publishedAt.getTime();
  const elapsed = at.getTime() - published;
  for (let step = Math.max(0, fromStep); step < scheduleMs.length; step++) {
    const offset = scheduleMs[step] as number;
    if (offset * (1 - METRICS_SCHEDULE_JITTER) <= elapsed) continue;
    const jitter = (random() * 2 - 1) * METRICS_SCHEDULE_JITTER;
    return { step, dueAt: new Date(published + Math.round(offset * (1 + jitter))) };
  }
  return { step: scheduleMs.length, dueAt: null };
}

/**
 * Due reads one worker pass claims by default (METRICS_PASS_SIZE). The claim rewrites each row's
 * due time (a lease), which costs about 30 µs a row on PostgreSQL: 500 keeps a pass's claim
 * well under 50 ms, and a busy worker runs passes back to back anyway.
 */
export const METRICS_PASS_SIZE = 500;
