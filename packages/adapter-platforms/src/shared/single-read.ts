// What every platform read one post at a time shares: the loop over a batch (one call per
// post), and the platform's refusals read as the port's answers (counts: metrics-read.ts).
import type {
  MetricsBatchOutcome,
  MetricsItemResult,
  MetricsReadItem,
  MetricsReadRequest,
} from '@social-publisher/domain';
import { batchFailure } from './metrics-read.ts';

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
 * What an error thrown while reading one post means: its own refusal (gone, unavailable), or
 * what a whole call's failure means (metrics-read.ts); never an exception out of `read`.
 */
export function answerOfError(error: unknown): Answer {
  return error instanceof ItemRefusal ? error.result : batchFailure(error);
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

/** "reconnect the account to grant <scope>": what a missing permission tells the user. */
export const reconnectFor = (label: string, scope: string, detail: string): string =>
  `${label} refused the numbers of this post for want of the ${scope} permission (${detail}): reconnect the account to grant ${scope}`;
