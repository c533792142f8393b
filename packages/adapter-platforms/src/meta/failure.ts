// How Meta's publishing APIs (Facebook Pages, Instagram, Threads) refuse a call: one Graph error
// object `{ error: { message, type, code, error_subcode, is_transient, fbtrace_id } }`, read
// once here; each network gives its own codes (developers.facebook.com "Handling Errors").
import type { IncomingHttpHeaders } from 'node:http';
import { asString, excerpt, header, isRecord } from '../shared/http.ts';
import { fail, type PublishFailure, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

/** Graph's generic 1/2 "unknown/service" errors: worth another try (without a subcode). */
export const GRAPH_RETRYABLE_CODES: ReadonlySet<number> = new Set([1, 2]);
/** Meta does not always say when a throttle ends; its windows are an hour at most. */
export const META_THROTTLE_WAIT_MS = 10 * 60_000;

/**
 * A spent 24-hour publishing quota: subcode 2207042 (Instagram's error table, which Threads
 * reuses), looked at again in an hour (the quota is a rolling 24 hours).
 */
export function publishingQuota(note: string): { subcode: number; note: string; waitMs: number } {
  return { subcode: 2207042, note, waitMs: 60 * 60_000 };
}

/** Graph's error object, read; NaN where a code is absent. */
export interface GraphError {
  code: number;
  subcode: number;
  message: string | undefined;
  transient: boolean;
}

/** The error object of a Graph answer, or undefined when the answer holds none. */
export function graphErrorOf(body: Record<string, unknown> | undefined): GraphError | undefined {
  const error = body && isRecord(body.error) ? body.error : undefined;
  if (!error) return undefined;
  return {
    code: Number(error.code),
    subcode: Number(error.error_subcode),
    message: asString(error.message),
    transient: error.is_transient === true,
  };
}

/**
 * A refusal without Graph's error object (a proxy's page, a bare 429 or 5xx): a 429 waits until
 * `retryAt()`, a 5xx is retried, anything else fails for good.
 */
export function bareGraphFailure(
  label: string,
  status: number,
  text: string,
  retryAt: () => Date,
): PublishFailure {
  const message = `${label} HTTP ${status}: ${excerpt(text)}`;
  if (status === 429) return throttled('http_429', message, retryAt());
  return fail(`http_${status}`, message, status >= 500);
}

/** How a platform turns a refused Graph call into its publish failure (codes differ by network). */
export type GraphFailure = (
  status: number,
  body: Record<string, unknown> | undefined,
  text: string,
  headers?: IncomingHttpHeaders,
) => Error;

/**
 * A reading of refusals where an object that is not there is `gone` (made from Graph's message):
 * code 100 subcode 33 ("Object with ID … does not exist, cannot be loaded due to missing
 * permissions, or does not support this operation"), an error `alsoGone` names, or a bare 404;
 * anything else is read as `otherwise` reads it.
 */
export function graphGoneOr(
  label: string,
  gone: (message: string) => Error,
  otherwise: GraphFailure,
  alsoGone: (error: GraphError) => boolean = () => false,
): GraphFailure {
  return (status, body, text, headers) => {
    const error = graphErrorOf(body);
    const missing = error
      ? (error.code === 100 && error.subcode === 33) || alsoGone(error)
      : status === 404;
    if (missing) return gone(`${label}: ${error?.message ?? `HTTP ${status}`}`);
    return otherwise(status, body, text, headers);
  };
}

/** What sets one Meta publishing API's reading of Graph errors apart. */
export interface MetaErrorTable {
  label: string;
  /** Throttling codes: the target waits until `retryAt`; read only without a subcode. */
  throttleCodes: ReadonlySet<number>;
  /** When a throttled call may be made again (default: Retry-After, else META_THROTTLE_WAIT_MS). */
  retryAt?: (headers: IncomingHttpHeaders) => Date;
  /**
   * Instagram and Threads: the subcode, when present, is the precise outcome code
   * (2207052...), these subcodes are worth another try, and `quota` is a spent publishing
   * quota. Absent (Facebook): the code alone is read.
   */
  subcodes?: {
    retryable: ReadonlySet<number>;
    quota: { subcode: number; note: string; waitMs: number };
  };
  /** Codes refused for good, with their outcome code (Facebook's 506 is duplicate_content). */
  permanent?: (code: number) => string | undefined;
  /**
   * `graph` (default): Graph's message as it is, `${label} error ${code}` without one.
   * `labelled`: `${label}: ${Graph's message or "error <code>"}`.
   */
  messages?: 'graph' | 'labelled';
  /** Added to the message of a rejected token (190), e.g. what the user should do. */
  tokenNote?: string;
}

/**
 * `{ error: { message, type, code, error_subcode, fbtrace_id } }` -> failure, as Meta's
 * publishing APIs answer: 190 is an invalid or expired token (these tokens are renewed ahead by
 * the worker, or not at all, so it ends connection_expired); throttling waits; the quota waits
 * longer; the table's permanent codes fail for good; Graph's 1/2, `is_transient` and 5xx retry.
 */
export function metaGraphFailure(table: MetaErrorTable): GraphFailure {
  const { label, subcodes } = table;
  const retryAt =
    table.retryAt ??
    ((headers: IncomingHttpHeaders) => retryAtFrom(headers, META_THROTTLE_WAIT_MS));
  return (status, body, text, headers = {}) => {
    const error = graphErrorOf(body);
    if (!error) return bareGraphFailure(label, status, text, () => retryAt(headers));
    const { code } = error;
    const labelled = table.messages === 'labelled';
    const graphMessage = error.message ?? (labelled ? `error ${code}` : `${label} error ${code}`);
    if (code === 190) {
      const note = table.tokenNote ? ` (${table.tokenNote})` : '';
      return new TokenRejected('190', `${graphMessage}${note}`);
    }
    const message = labelled ? `${label}: ${graphMessage}` : graphMessage;
    const subcode = subcodes ? error.subcode : Number.NaN;
    const hasSubcode = Number.isFinite(subcode);
    if (subcodes && subcode === subcodes.quota.subcode) {
      const { quota } = subcodes;
      return throttled(
        String(subcode),
        `${message} (${quota.note})`,
        retryAtFrom(headers, quota.waitMs),
      );
    }
    if (!hasSubcode && table.throttleCodes.has(code)) {
      return throttled(String(code), message, retryAt(headers));
    }
    const permanent = table.permanent?.(code);
    if (permanent !== undefined) return fail(permanent, message, false);
    const retryable =
      (hasSubcode
        ? (subcodes?.retryable.has(subcode) ?? false)
        : GRAPH_RETRYABLE_CODES.has(code)) ||
      error.transient ||
      status >= 500;
    const outcomeCode = hasSubcode
      ? String(subcode)
      : Number.isFinite(code)
        ? String(code)
        : `http_${status}`;
    return fail(outcomeCode, message, retryable);
  };
}

/**
 * When Meta lets the Page, account or app call again: the largest
 * estimated_time_to_regain_access (minutes) in X-Page-Usage, X-App-Usage or
 * X-Business-Use-Case-Usage (developers.facebook.com "Rate Limits"), else Retry-After, else
 * META_THROTTLE_WAIT_MS.
 */
export function metaUsageRetryAt(headers: IncomingHttpHeaders): Date {
  let minutes = 0;
  for (const name of ['x-page-usage', 'x-app-usage', 'x-business-use-case-usage']) {
    const value = header(headers, name);
    if (value) minutes = Math.max(minutes, largestEstimate(value));
  }
  return minutes > 0
    ? retryAtFrom({ 'retry-after': String(minutes * 60) }, META_THROTTLE_WAIT_MS)
    : retryAtFrom(headers, META_THROTTLE_WAIT_MS);
}

function largestEstimate(json: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return 0;
  }
  let found = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isRecord(value)) {
      const estimate = Number(value.estimated_time_to_regain_access);
      if (Number.isFinite(estimate)) found = Math.max(found, estimate);
      for (const inner of Object.values(value)) if (typeof inner === 'object') visit(inner);
    }
  };
  visit(parsed);
  return found;
}
