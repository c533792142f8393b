import type { RateLimit } from '../ports/pacer.ts';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `<count>/<window>` (`6/60s`, `100/15m`, `50/24h`) or `off`: what `<PLATFORM>_RATE_LIMIT` accepts. */
export const RATE_LIMIT_PATTERN = /^(?:off|[1-9]\d{0,8}\/[1-9]\d{0,8}(?:ms|s|m|h|d))$/;

/** The limit a `<count>/<window>` text names; null for `off`; undefined when it is neither. */
export function parseRateLimit(text: string): RateLimit | null | undefined {
  const value = text.trim();
  if (!RATE_LIMIT_PATTERN.test(value)) return undefined;
  if (value === 'off') return null;
  const match = /^(\d+)\/(\d+)([a-z]+)$/.exec(value);
  if (!match) return undefined;
  const [, count, amount, unit] = match;
  return { count: Number(count), windowMs: Number(amount) * (UNIT_MS[unit ?? ''] ?? 1) };
}

/**
 * Kept between a call leaving the window and the next one (5 % of the window, at most 2 s): we
 * count a call just before the publisher sends it, the platform when it arrives; the request's
 * own trip (and a busy event loop before it leaves) lies between the two.
 */
export const paceMarginMs = (limit: RateLimit): number =>
  Math.min(2_000, Math.ceil(limit.windowMs / 20));

/**
 * When a new call may be made, given the times of the calls counted and the slots already
 * reserved (ascending): once fewer than `count` of them lie in the window ending then. Slots
 * are handed out in order, so this is the `count`-th latest slot plus the window.
 */
export function nextSlotAt(
  slots: readonly number[],
  limit: RateLimit,
  now: number,
  blockedUntil: number,
): number {
  const latest = slots.length >= limit.count ? slots[slots.length - limit.count] : undefined;
  const freed = latest === undefined ? now : latest + limit.windowMs + paceMarginMs(limit);
  return Math.max(now, freed, blockedUntil);
}

/**
 * The slots that still count at `now`: calls made within the window (plus the margin) and
 * every reserved slot ahead.
 */
export const countingSince = (limit: RateLimit, now: number): number =>
  now - limit.windowMs - paceMarginMs(limit);
