/**
 * Strict ISO 8601 / RFC 3339 instants. `Date.parse` accepts far too much (date-only strings,
 * local times, "2026-02-31" rolling over), so a schedule could silently land on another day.
 */

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)$/i;

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** The instant, or null when the text is not a complete date-time with a zone designator. */
export function parseIsoInstant(text: string): Date | null {
  const match = ISO_INSTANT.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  const offsetHours = Number(oh ?? '0');
  const offsetMinutes = Number(om ?? '0');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (offsetHours > 23 || offsetMinutes > 59) return null;

  const millis = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  const isUtc = zone?.toUpperCase() === 'Z';
  const offset = isUtc ? 0 : (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const time = date.getTime() - offset * 60_000;
  return Number.isFinite(time) ? new Date(time) : null;
}
