/** Posting slots: weekly wall-clock times of a connection, and the times they fall on. */
import type { Problem } from '../errors.ts';
import { SLOT_DAYS, type Slot, type SlotDay } from '../series-model.ts';
import { isRecord, typeName } from './shape.ts';
import { instantOf, isTimeZone, wallTimeOf } from './wall-clock.ts';

/** The most slots one connection may have (every quarter hour of a week is 672). */
export const MAX_SLOTS = 672;
/** How far ahead `POST /posts/queue` looks for a free slot. */
export const SLOT_HORIZON_DAYS = 366;

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The problems of a PUT slots body, and the slots in week order when there are none. */
export function validateSlotSet(value: unknown): {
  problems: Problem[];
  timezone: string;
  slots: Slot[];
} {
  const problems: Problem[] = [];
  const body = isRecord(value) ? value : {};
  if (!isRecord(value)) {
    problems.push({ field: 'body', message: `must be an object, got ${typeName(value)}` });
  }
  const { timezone, slots } = body;
  if (!isTimeZone(timezone)) {
    problems.push({ field: 'timezone', message: 'must be an IANA timezone such as Europe/Berlin' });
  }
  const valid: Slot[] = [];
  if (!Array.isArray(slots) || slots.length > MAX_SLOTS) {
    problems.push({ field: 'slots', message: `must be an array of at most ${MAX_SLOTS} slots` });
  } else {
    const seen = new Set<string>();
    slots.forEach((slot: unknown, index) => {
      const field = `slots[${index}]`;
      const day = isRecord(slot) ? slot.day : undefined;
      const time = isRecord(slot) ? slot.time : undefined;
      if (typeof day !== 'string' || !SLOT_DAYS.includes(day as SlotDay)) {
        problems.push({ field: `${field}.day`, message: `must be one of ${SLOT_DAYS.join(', ')}` });
      } else if (typeof time !== 'string' || !TIME.test(time)) {
        problems.push({ field: `${field}.time`, message: 'must be HH:MM from 00:00 to 23:59' });
      } else if (seen.has(`${day} ${time}`)) {
        problems.push({ field, message: `${day} ${time} is listed twice` });
      } else {
        seen.add(`${day} ${time}`);
        valid.push({ day: day as SlotDay, time });
      }
    });
  }
  const order = (slot: Slot) => `${SLOT_DAYS.indexOf(slot.day)} ${slot.time}`;
  valid.sort((a, b) => order(a).localeCompare(order(b)));
  return { problems, timezone: typeof timezone === 'string' ? timezone : '', slots: valid };
}

/** The instants a list of wall times of one calendar day fall on, in `timeZone`. */
function instantsOfDay(
  date: { year: number; month: number; day: number },
  times: ReadonlyArray<{ hour: number; minute: number }>,
  timeZone: string,
): Date[] {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  // One offset from the day before to the day after: no DST change near, so every wall time
  // of the day is that offset away (two Intl calls a day instead of three a slot).
  const offset = offsetAt(midnight - 86_400_000, timeZone);
  if (offset === offsetAt(midnight + 2 * 86_400_000, timeZone)) {
    return times.map(
      ({ hour, minute }) => new Date(midnight + (hour * 60 + minute) * 60_000 - offset),
    );
  }
  return times.map(({ hour, minute }) => instantOf({ ...date, hour, minute, second: 0 }, timeZone));
}

/** How far `timeZone` is ahead of UTC at the wall-clock instant `localMs` (about). */
function offsetAt(localMs: number, timeZone: string): number {
  const wall = wallTimeOf(new Date(localMs), timeZone);
  const shown = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return shown - Math.floor(localMs / 1000) * 1000;
}

/**
 * Every time the slots fall on strictly after `after` and within `horizonDays`, in order. A
 * slot skipped by a DST change (02:30 on the spring-forward night) moves forward by the gap.
 */
export function slotTimes(
  set: { timezone: string; slots: Slot[] },
  after: Date,
  horizonDays = SLOT_HORIZON_DAYS,
): Date[] {
  const times: number[] = [];
  if (set.slots.length === 0) return [];
  const byDay = new Map<SlotDay, Array<{ hour: number; minute: number }>>();
  for (const slot of set.slots) {
    const [hour, minute] = slot.time.split(':').map(Number);
    const list = byDay.get(slot.day) ?? [];
    list.push({ hour: hour ?? 0, minute: minute ?? 0 });
    byDay.set(slot.day, list);
  }
  const today = wallTimeOf(after, set.timezone);
  const end = after.getTime() + horizonDays * 86_400_000;
  for (let offset = 0; offset <= horizonDays + 1; offset++) {
    // A calendar day in the zone, counted in UTC so that DST does not shift the day.
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    const wallTimes = byDay.get(SLOT_DAYS[(date.getUTCDay() + 6) % 7] as SlotDay);
    if (!wallTimes) continue;
    const day = {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
    };
    for (const instant of instantsOfDay(day, wallTimes, set.timezone)) {
      if (instant.getTime() > after.getTime() && instant.getTime() <= end) {
        times.push(instant.getTime());
      }
    }
  }
  // Two slots of one day may land on the same instant across a DST gap: keep it once.
  return [...new Set(times)].sort((a, b) => a - b).map((time) => new Date(time));
}
