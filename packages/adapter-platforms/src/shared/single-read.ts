// What every platform read one post at a time shares: the loop over a batch (one call per
// post), the platform's refusals read as the port's answers, and counts read as the port wants
// them (a non-negative integer, or null when the platform gives none).
import {
  errorMessage,
  type MetricsBatchOutcome,
  type MetricsItemResult,
  type MetricsReadItem,
  type MetricsReadRequest,
} from '@social-publisher/domain';
import { PublishFailure, TokenRejected } from './outcome.ts';

/**
 * Thrown by a platform's reading of a refusal that concerns the post alone (it is gone, its
 * numbers are not ours to read): the loop records it for that post.
 */
export class ItemRefusal extends Error {
  readonly result: Extract<MetricsItemResult, { kind: 'gone' | 'unavailable' }>;
  constructor(result: Extract<MetricsItemResult, { kind: 'gone' | 'unavailable' }>) {
    super(result.message);
    this.name = 'ItemRefusal';
    this.result = result;
  }
}

/** One post's answer, or one for the whole connection (its token refused, its calls throttled). */
type Answer =
  | MetricsItemResult
  | Extract<MetricsBatchOutcome, { kind: 'connection_expired' | 'throttled' }>;

/**
 * What an error thrown while reading one post means. The API clients throw what publishing
 * throws (TokenRejected, PublishFailure with its outcome), read here as the port's answers; an
 * unexpected error is a failed read, never an exception out of `read`.
 */
export function answerOfError(error: unknown): Answer {
  if (error instanceof ItemRefusal) return error.result;
  if (error instanceof TokenRejected) {
    return { kind: 'connection_expired', message: `${error.code}: ${error.message}` };
  }
  if (error instanceof PublishFailure) {
    const { outcome } = error;
    if (outcome.kind === 'throttled' || outcome.kind === 'connection_expired') return outcome;
    if (outcome.kind === 'failed') {
      return { kind: 'failed', code: outcome.code, message: outcome.message };
    }
  }
  return { kind: 'failed', code: 'internal_error', message: errorMessage(error) };
}

/**
 * Reads the batch's posts one call each (`readOne` answers the post's numbers or throws). A
 * refused token or a throttle ends the batch with that answer (every post waits alike); any
 * other answer belongs to its post.
 */
export async function readEach(
  request: MetricsReadRequest,
  readOne: (item: MetricsReadItem) => Promise<MetricsItemResult>,
): Promise<MetricsBatchOutcome> {
  const results = new Map<string, MetricsItemResult>();
  for (const item of request.items) {
    let answer: Answer;
    try {
      answer = await readOne(item);
    } catch (error) {
      answer = answerOfError(error);
    }
    if (answer.kind === 'connection_expired' || answer.kind === 'throttled') return answer;
    results.set(item.targetId, answer);
  }
  return { kind: 'read', results };
}

/** A count as the port wants it: a non-negative integer, or null when absent or unreadable. */
export function countOf(value: unknown): number | null {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) return null;
  return Math.floor(number);
}

/** "reconnect the account to grant <scope>": what a missing permission tells the user. */
export const reconnectFor = (label: string, scope: string, detail: string): string =>
  `${label} refused the numbers of this post for want of the ${scope} permission (${detail}): reconnect the account to grant ${scope}`;
