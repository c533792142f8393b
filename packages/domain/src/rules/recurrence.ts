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
/**
 * How far past the time asked about a rule is expanded. A rule whose next occurrence lies
 * further out (or never comes: BYMONTH=2;BYMONTHDAY=30) has none: it is refused at create and
 * a stored series ends `finished`. Without this bound `rrule` walks to the year 9999 looking
 * for a match, for seconds, holding the event loop.
 */
export const RECURRENCE_HORIZON_YEARS = 5;
/** The shortest time between two occurrences: posting more often is spam on every network. */
export const MIN_OCCURRENCE_GAP_MS = 3_600_000;
/**
 * Periods (hours of an HOURLY rule, days of a DAILY one...) walked at most, matching or not:
 * rrule takes about 10 µs a period, so no expansion holds the event loop past ~100 ms. A
 * series with `count` walks from its first time: 10,000 periods are over a year of an
 * hourly rule; one without `count` walks from its latest occurrence.
 */
const MAX_PERIODS = 10_000;
/** Periods walked at most up to the time asked about (a series with `count`, from its start). */
const MAX_HISTORY_PERIODS = 50_000;
/** The shortest length of one period of each FREQ (rrule's Frequency numbers: YEARLY is 0). */
const SHORTEST_PERIOD_MS = [365, 28, 7, 1].map((days) => days * 86_400_000).concat(3_600_000);

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
  try {
    // The constructor checks what parseString lets through (BYSETPOS=400, BYHOUR=25...).
    new RRule({ ...options, dtstart: new Date(0), tzid: null });
  } catch (error) {
    return `is not a valid RRULE (${errorMessage(error)})`;
  }
  // Posting more often than hourly is spam on every network, and would outrun the worker.
  if (options.freq === RRule.SECONDLY || options.freq === RRule.MINUTELY) {
    return 'FREQ must be HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY';
  }
  // Two minutes or seconds of one hour are less than an hour apart, whatever the frequency.
  for (const [part, values] of [
    ['BYMINUTE', options.byminute],
    ['BYSECOND', options.bysecond],
  ] as const) {
    if (Array.isArray(values) && values.length > 1) {
      return `${part} takes one value: occurrences must be at least an hour apart`;
    }
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

/** Thrown to end rrule's walk, whose only bound of its own is the year 9999. */
class WalkBudgetSpent extends Error {}

/**
 * Runs `rule.all(visit)` over at most `periods` periods. rrule calls `visit` only for matching
 * dates, and a rule matching none (BYMONTH=2;BYMONTHDAY=30) walks 8,000 years of periods
 * without calling it, ignoring `until`. Its loop reads `options.interval` twice a period, so
 * counting those reads is the one place a budget can stop it.
 */
function walkBounded(
  rule: InstanceType<typeof RRule>,
  periods: number,
  visit: (date: Date) => boolean,
): void {
  const options = rule.options;
  const interval = options.interval;
  let reads = 0;
  Object.defineProperty(options, 'interval', {
    configurable: true,
    enumerable: true,
    get() {
      reads++;
      if (reads > 2 * periods) throw new WalkBudgetSpent();
      return interval;
    },
  });
  try {
    rule.all(visit);
  } catch (error) {
    if (!(error instanceof WalkBudgetSpent)) throw error;
  }
}

/** Periods of `rule` from `from` to `to`, rounded up. */
function periodsBetween(rule: InstanceType<typeof RRule>, from: Date, to: Date): number {
  const { freq, interval } = rule.options;
  const period = (SHORTEST_PERIOD_MS[freq] ?? 3_600_000) * Math.max(1, interval);
  return Math.max(0, Math.ceil((to.getTime() - from.getTime()) / period)) + 2;
}

/** `date` plus whole calendar years, in floating time (Feb 29 becomes Mar 1). */
const plusYears = (date: Date, years: number): Date => {
  const later = new Date(date.getTime());
  later.setUTCFullYear(later.getUTCFullYear() + years);
  return later;
};

const hasValue = (value: unknown): boolean =>
  value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);

/**
 * The rule with every default rrule would take from DTSTART written out (the weekday of a
 * WEEKLY rule, the hour of a DAILY one...), so that it may be walked from a later occurrence
 * without changing what it matches.
 */
function pinStartDefaults(options: Partial<Options>, start: Date): Partial<Options> {
  const pinned = { ...options };
  const freq = options.freq as number;
  const datePicked = [
    options.byweekno,
    options.byyearday,
    options.bymonthday,
    options.byweekday,
    options.byeaster,
  ].some(hasValue);
  if (!datePicked && freq === RRule.YEARLY) {
    pinned.bymonth = hasValue(options.bymonth) ? options.bymonth : start.getUTCMonth() + 1;
    pinned.bymonthday = start.getUTCDate();
  } else if (!datePicked && freq === RRule.MONTHLY) {
    pinned.bymonthday = start.getUTCDate();
  } else if (!datePicked && freq === RRule.WEEKLY) {
    pinned.byweekday = (start.getUTCDay() + 6) % 7;
  }
  if (freq <= RRule.DAILY && !hasValue(options.byhour)) pinned.byhour = start.getUTCHours();
  if (!hasValue(options.byminute)) pinned.byminute = start.getUTCMinutes();
  if (!hasValue(options.bysecond)) pinned.bysecond = start.getUTCSeconds();
  return pinned;
}

/**
 * Whether an HOURLY rule's BYHOUR can be reached from the hour it starts at: stepping by
 * INTERVAL hours reaches only the hours congruent to the start modulo gcd(INTERVAL, 24), and
 * rrule searches for the next BYHOUR in a loop with no bound at all
 * (FREQ=HOURLY;INTERVAL=24;BYHOUR=5 from 09:00 never returns).
 */
function reachesAnHour(options: Partial<Options>, start: Date): boolean {
  if (options.freq !== RRule.HOURLY || !hasValue(options.byhour)) return true;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const step = gcd(Math.max(1, options.interval ?? 1), 24);
  const hours = ([] as number[]).concat(options.byhour as number | number[]);
  return hours.some((hour) => (hour - start.getUTCHours()) % step === 0);
}

/**
 * Up to `limit` occurrences strictly after `after`, in order, none later than
 * RECURRENCE_HORIZON_YEARS past `after` (or past `firstAt` when that is later) and none found
 * by walking more than MAX_PERIODS periods. The first occurrence is `firstAt` itself (RFC 5545:
 * DTSTART is always the first instance); `count` counts it. An occurrence less than
 * MIN_OCCURRENCE_GAP_MS after the one before it (the rule's first time just after `firstAt`,
 * or two wall times that meet across a DST change) is skipped and not counted, so no two
 * occurrences are ever closer than that.
 *
 * `knownAt`, an occurrence already made (the latest), lets a series without `count` walk from
 * there instead of from `firstAt`: an hourly series a year old costs what a new one does.
 */
export function occurrencesAfter(
  series: SeriesRule,
  after: Date,
  limit: number,
  knownAt: Date | null = null,
): Date[] {
  const found: Date[] = [];
  if (limit <= 0) return found;
  const withinBounds = (instant: Date, index: number): boolean =>
    (series.count === null || index < series.count) &&
    (series.until === null || instant.getTime() <= series.until.getTime());
  if (!withinBounds(series.firstAt, 0)) return found;
  if (series.firstAt.getTime() > after.getTime()) found.push(series.firstAt);
  if (found.length >= limit) return found;

  const parsed = parseRule(series.rrule);
  const origin = floating(series.firstAt, series.timezone);
  if (typeof parsed === 'string' || !reachesAnHour(parsed, origin)) return found;
  const resumeAt =
    series.count === null && knownAt !== null && knownAt > series.firstAt
      ? knownAt
      : series.firstAt;
  const start = floating(resumeAt, series.timezone);
  const from = after.getTime() > resumeAt.getTime() ? after : resumeAt;
  // `until` ends rrule's walk at the first match past the horizon; walkBounded ends it when
  // nothing matches at all.
  const fromFloatingTime = floating(from, series.timezone);
  const horizon = plusYears(fromFloatingTime, RECURRENCE_HORIZON_YEARS);
  const rule = new RRule({
    ...pinStartDefaults(parsed, origin),
    dtstart: start,
    until: horizon,
    tzid: null,
  });
  let index = 1;
  let previous = resumeAt.getTime();
  const budget =
    Math.min(periodsBetween(rule, start, fromFloatingTime), MAX_HISTORY_PERIODS) +
    Math.min(periodsBetween(rule, fromFloatingTime, horizon), MAX_PERIODS);
  walkBounded(rule, budget, (date) => {
    if (date.getTime() <= start.getTime()) return true;
    const instant = fromFloating(date, series.timezone);
    if (instant.getTime() - previous < MIN_OCCURRENCE_GAP_MS) return true;
    if (!withinBounds(instant, index)) return false;
    index++;
    previous = instant.getTime();
    if (instant.getTime() > after.getTime()) found.push(instant);
    return found.length < limit;
  });
  return found;
}

/**
 * Why a rule starting at `firstAt` cannot repeat, or null when it can: its second occurrence
 * must come within RECURRENCE_HORIZON_YEARS (count and until aside: those only end a series).
 */
export function whyRuleNeverRepeats(
  rule: Pick<PostSeries, 'rrule' | 'timezone' | 'firstAt'>,
): string | null {
  const next = occurrencesAfter({ ...rule, count: null, until: null }, rule.firstAt, 1);
  return next.length > 0
    ? null
    : `has no occurrence within ${RECURRENCE_HORIZON_YEARS} years after scheduled_at`;
}
