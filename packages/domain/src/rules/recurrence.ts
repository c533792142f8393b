/**
 * Repeating posts: RFC 5545 RRULEs expanded by the `rrule` library in floating time (its own
 * TZID support converts through the host's zone and is known to drift across DST), then each
 * wall-clock occurrence placed in the series' IANA timezone by wall-clock.ts. So 09:00 stays
 * 09:00 in Berlin in winter and in summer.
 */
import rrulePackage, { type Options } from 'rrule';
import type { Problem } from '../errors.ts';
import { errorMessage } from '../errors.ts';
import type { PostSeries } from '../series-model.ts';
import { parseIsoInstant } from './iso-time.ts';
import { isRecord, typeName } from './shape.ts';
import { instantOf, isTimeZone, wallTimeOf } from './wall-clock.ts';

const { RRule } = rrulePackage;

/** The longest RRULE text accepted. */
export const MAX_RRULE_LENGTH = 500;
/** The most occurrences a series may have. */
export const MAX_SERIES_COUNT = 10_000;
/** Occurrences the rule is expanded through before giving up (a rule that never matches). */
const MAX_EXPANSION = 100_000;

/** `recurrence` of POST /posts/schedule, as validated. */
export interface RecurrenceInput {
  rrule: string;
  timezone: string;
  count: number | null;
  until: Date | null;
}

/** The RRULE's options, or a message saying why it is not one we take. */
function parseRule(text: string): Partial<Options> | string {
  const body = text.replace(/^RRULE:/i, '');
  if (/[\r\n]/.test(body) || /(^|;)\s*(DTSTART|TZID)\s*[=:]/i.test(body)) {
    return 'must be a single RRULE without DTSTART or TZID (scheduled_at and timezone give them)';
  }
  if (/(^|;)\s*(COUNT|UNTIL)\s*=/i.test(body)) {
    return 'must not hold COUNT or UNTIL: use recurrence.count or recurrence.until';
  }
  let options: Partial<Options>;
  try {
    options = RRule.parseString(body);
  } catch (error) {
    return `is not a valid RRULE (${errorMessage(error)})`;
  }
  if (options.freq === undefined) return 'needs FREQ';
  // Posting more often than hourly is spam on every network, and would outrun the worker.
  if (options.freq === RRule.SECONDLY || options.freq === RRule.MINUTELY) {
    return 'FREQ must be HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY';
  }
  return options;
}

/** Problems of a `recurrence` object; `recurrence` itself must be a JSON object. */
export function validateRecurrence(value: unknown): {
  problems: Problem[];
  recurrence: RecurrenceInput | null;
} {
  const problems: Problem[] = [];
  if (!isRecord(value)) {
    problems.push({ field: 'recurrence', message: `must be an object, got ${typeName(value)}` });
    return { problems, recurrence: null };
  }
  const { rrule, timezone, count, until } = value;
  if (typeof rrule !== 'string' || rrule.length === 0 || rrule.length > MAX_RRULE_LENGTH) {
    problems.push({
      field: 'recurrence.rrule',
      message: `must be an RRULE of 1 to ${MAX_RRULE_LENGTH} characters`,
    });
  } else {
    const parsed = parseRule(rrule);
    if (typeof parsed === 'string') problems.push({ field: 'recurrence.rrule', message: parsed });
  }
  if (!isTimeZone(timezone)) {
    problems.push({
      field: 'recurrence.timezone',
      message: 'must be an IANA timezone such as Europe/Berlin',
    });
  }
  const hasCount = count !== undefined && count !== null;
  const hasUntil = until !== undefined && until !== null;
  if (hasCount && hasUntil) {
    problems.push({ field: 'recurrence', message: 'takes at most one of count and until' });
  }
  if (
    hasCount &&
    (!Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_SERIES_COUNT)
  ) {
    problems.push({
      field: 'recurrence.count',
      message: `must be an integer from 1 to ${MAX_SERIES_COUNT}`,
    });
  }
  const untilAt = typeof until === 'string' ? parseIsoInstant(until) : null;
  if (hasUntil && untilAt === null) {
    problems.push({
      field: 'recurrence.until',
      message: 'must be an ISO 8601 date-time with a zone',
    });
  }
  if (problems.length > 0) return { problems, recurrence: null };
  return {
    problems,
    recurrence: {
      rrule: (rrule as string).replace(/^RRULE:/i, ''),
      timezone: timezone as string,
      count: hasCount ? (count as number) : null,
      until: untilAt,
    },
  };
}

type SeriesRule = Pick<PostSeries, 'rrule' | 'timezone' | 'count' | 'until' | 'firstAt'>;

/** Floating time: a wall-clock time written as if it were UTC, what `rrule` computes in. */
const floating = (instant: Date, timeZone: string): Date => {
  const wall = wallTimeOf(instant, timeZone);
  return new Date(
    Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second),
  );
};

const fromFloating = (date: Date, timeZone: string): Date =>
  instantOf(
    {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    },
    timeZone,
  );

/**
 * Up to `limit` occurrences strictly after `after`, in order. The first occurrence is `firstAt`
 * itself (RFC 5545: DTSTART is always the first instance); `count` counts it.
 */
export function occurrencesAfter(series: SeriesRule, after: Date, limit: number): Date[] {
  const found: Date[] = [];
  if (limit <= 0) return found;
  const withinBounds = (instant: Date, index: number): boolean =>
    (series.count === null || index < series.count) &&
    (series.until === null || instant.getTime() <= series.until.getTime());
  if (!withinBounds(series.firstAt, 0)) return found;
  if (series.firstAt.getTime() > after.getTime()) found.push(series.firstAt);
  if (found.length >= limit) return found;

  const parsed = parseRule(series.rrule);
  if (typeof parsed === 'string') return found;
  const start = floating(series.firstAt, series.timezone);
  const rule = new RRule({ ...parsed, dtstart: start, tzid: null });
  let index = 1;
  let expanded = 0;
  rule.all((date) => {
    expanded++;
    if (expanded > MAX_EXPANSION) return false;
    if (date.getTime() <= start.getTime()) return true;
    const instant = fromFloating(date, series.timezone);
    if (!withinBounds(instant, index)) return false;
    index++;
    if (instant.getTime() > after.getTime()) found.push(instant);
    return found.length < limit;
  });
  return found;
}
