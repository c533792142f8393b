// How the YouTube Data API refuses a call: Google's error object, read the same way for every
// call (uploads, comments, metrics, removal).
import { asString, excerpt, type HttpResult, isRecord } from '../shared/http.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

const RETRYABLE_REASONS = new Set(['backendError', 'internalError']);
/**
 * "Slow down" reasons: short-term rate limits, and the project's daily quota (it resets at
 * midnight Pacific time; looking again every hour costs one refused call).
 */
const THROTTLE_WAITS_MS: Record<string, number> = {
  rateLimitExceeded: 60_000,
  userRateLimitExceeded: 60_000,
  quotaExceeded: 60 * 60_000,
};

/**
 * `{ error: { code, message, errors: [{ domain, reason, message }] } }` -> failure with the first
 * reason as code (quotaExceeded, uploadLimitExceeded, backendError...) and the message verbatim.
 * 401 is an expired/revoked token (refreshed once by AuthSession).
 */
export function youtubeFailure(response: HttpResult): Error {
  const error =
    isRecord(response.json) && isRecord(response.json.error) ? response.json.error : undefined;
  const first =
    error && Array.isArray(error.errors) && isRecord(error.errors[0]) ? error.errors[0] : undefined;
  const reason = first ? asString(first.reason) : undefined;
  const message =
    (error && asString(error.message)) || excerpt(response.text) || `HTTP ${response.status}`;
  if (response.status === 401) return new TokenRejected(reason ?? '401', message);
  const wait = reason === undefined ? undefined : THROTTLE_WAITS_MS[reason];
  if (wait !== undefined || response.status === 429) {
    const retryAt = retryAtFrom(response.headers, wait ?? 60_000);
    return throttled(reason ?? 'http_429', message, retryAt);
  }
  const retryable =
    response.status >= 500 || (reason !== undefined && RETRYABLE_REASONS.has(reason));
  return fail(reason ?? `http_${response.status}`, message, retryable);
}
