/**
 * Parses a `Retry-After` header (RFC 9110 section 10.2.3): delay-seconds or an HTTP date.
 * Returns milliseconds from `nowMs` (never negative), or null when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number = Date.now(),
): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  // An HTTP date always names a weekday or month; this keeps bare numbers like "1.5" or
  // "-3" (not valid delay-seconds) from being read as dates by Date.parse.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
