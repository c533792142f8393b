/**
 * Wall-clock times in an IANA timezone, with the timezone's real rules (DST included), from
 * Intl alone: no timezone database of our own to keep up to date.
 */

/** A local date and time, without a timezone (months 1-12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The longest IANA timezone name taken (the longest real one has 32 characters). */
export const MAX_TIMEZONE_LENGTH = 100;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether Intl knows the IANA name (e.g. `Europe/Berlin`, `UTC`). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TIMEZONE_LENGTH)
    return false;
  try {
    formatterOf(value);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time `instant` shows in `timeZone`. */
export function wallTimeOf(instant: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const asUtcMs = (wall: WallTime): number =>
  Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);

/** How far `timeZone` is ahead of UTC at `instant`, in milliseconds. */
function offsetMs(instant: number, timeZone: string): number {
  return asUtcMs(wallTimeOf(new Date(instant), timeZone)) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall-clock time names in `timeZone`. A time skipped by a DST change (02:30 on
 * the spring-forward night) moves forward by the gap (03:30), and a time that occurs twice
 * (the fall-back night) is the earlier one: what calendars do, and what Temporal calls
 * 'compatible'.
 */
export function instantOf(wall: WallTime, timeZone: string): Date {
  const local = asUtcMs(wall);
  // The offsets a day either side cover every DST change (none is longer than a day).
  const before = offsetMs(local - 86_400_000, timeZone);
  const after = offsetMs(local + 86_400_000, timeZone);
  const candidates = [...new Set([before, after])]
    .map((offset) => local - offset)
    .filter((instant) => asUtcMs(wallTimeOf(new Date(instant), timeZone)) === local)
    .sort((a, b) => a - b);
  const earliest = candidates[0];
  if (earliest !== undefined) return new Date(earliest);
  // In the gap: the offset from before the change, which lands after it.
  return new Date(local - before);
}
