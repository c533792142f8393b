// What every platform's metrics reader shares: the platform's numbers as our MetricValues
// (null where it says nothing), and its refusals (thrown by the same api.ts mappers the
// publisher uses) as the outcome of one batch, never an exception.
import {
  errorMessage,
  type MetricName,
  type MetricsBatchOutcome,
  type MetricsItemResult,
  type MetricValues,
  noMetrics,
} from '@social-publisher/domain';
import { PublishFailure, TokenRejected } from './outcome.ts';

/**
 * A count as the platform gave it: a non-negative integer, or digits in a string (YouTube,
 * int64 values); anything else (absent, negative, a fraction, garbage) is null, never 0.
 */
export function countOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const parsed = Number(value);
    return Number.isSafeInteger(parsed) ? parsed : null;
  }
  return null;
}

/**
 * Our numbers from the platform's record `source`: `names` says which of its keys each of ours
 * is read from; every other name stays null.
 */
export function metricsFrom(
  source: Record<string, unknown>,
  names: Partial<Record<MetricName, string>>,
): MetricValues {
  const metrics = noMetrics();
  for (const [ours, theirs] of Object.entries(names) as [MetricName, string][]) {
    metrics[ours] = countOf(source[theirs]);
  }
  return metrics;
}

/** The platform's own keys among `keys`, as read (what a snapshot keeps as `raw`). */
export function rawOf(
  source: Record<string, unknown>,
  keys: readonly string[],
): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}

/**
 * A call that failed as a whole, from what the platform's api.ts mapper threw: a refused token
 * ends the connection, a "slow down" waits, anything else is a failed read with the platform's
 * code and words.
 */
export function batchFailure(error: unknown): Exclude<MetricsBatchOutcome, { kind: 'read' }> {
  if (error instanceof TokenRejected) {
    return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof PublishFailure) {
    const outcome = error.outcome;
    if (outcome.kind === 'throttled') {
      return {
        kind: 'throttled',
        code: outcome.code,
        message: outcome.message,
        retryAt: outcome.retryAt,
      };
    }
    if (outcome.kind === 'connection_expired') {
      return { kind: 'connection_expired', message: outcome.message };
    }
    if (outcome.kind === 'failed') {
      return { kind: 'failed', code: outcome.code, message: outcome.message };
    }
  }
  return { kind: 'failed', code: 'internal_error', message: errorMessage(error) };
}

/** Runs one batch's reading; whatever it throws becomes the batch's outcome. */
export async function readBatch(
  body: () => Promise<ReadonlyMap<string, MetricsItemResult>>,
): Promise<MetricsBatchOutcome> {
  try {
    return { kind: 'read', results: await body() };
  } catch (error) {
    return batchFailure(error);
  }
}

/** A post the platform answered for, with its numbers and its own names and values. */
export const readResult = (
  metrics: MetricValues,
  raw: Record<string, unknown>,
): MetricsItemResult => ({ kind: 'read', metrics, raw });

export const goneResult = (message: string): MetricsItemResult => ({ kind: 'gone', message });
