import { buildEventPayload } from './event-payload.ts';
import type { PostTarget, WebhookEvent } from './model.ts';

export type PostOutcomeStatus = 'published' | 'partial' | 'failed';

export interface PostOutcome {
  status: PostOutcomeStatus;
  event: WebhookEvent;
  published: number;
  failed: number;
  total: number;
}

/**
 * The outcome of a post whose targets are all terminal (docs/api.md#statuses). Every target that is
 * not published counts as failed, cancelled ones included: the events (docs/api.md#webhook-events) are defined purely by
 * the counts, and a receiver must be able to rely on published + failed = total. A post with
 * no target at all published nothing, so it is `failed` rather than vacuously `published`.
 */
export function postOutcome(targets: ReadonlyArray<Pick<PostTarget, 'status'>>): PostOutcome {
  const total = targets.length;
  const published = targets.filter((target) => target.status === 'published').length;
  const failed = total - published;
  if (published > 0 && failed === 0) {
    return { status: 'published', event: 'post.published', published, failed, total };
  }
  if (published === 0) return { status: 'failed', event: 'post.failed', published, failed, total };
  return { status: 'partial', event: 'post.partial', published, failed, total };
}

/** The `data` of the post's outcome event: the counts only (post.failed: no `published`). */
export function outcomeData(
  outcome: Pick<PostOutcome, 'event' | 'published' | 'failed' | 'total'>,
): Record<string, number> {
  return outcome.event === 'post.failed'
    ? { failed: outcome.failed, total: outcome.total }
    : { published: outcome.published, failed: outcome.failed, total: outcome.total };
}

export interface WebhookPayloadInput {
  event: WebhookEvent;
  accountId: string;
  postId: string;
  /** Time of the delivery; a Date is written as ISO 8601 UTC. */
  timestamp: Date | string;
  published: number;
  failed: number;
  total: number;
  eventId: string;
}

/**
 * The body of a post's outcome event (docs/api.md#webhook-payload), through the one payload
 * writer. `data` holds the counts and nothing else (post.failed: only `failed` and `total`, as
 * the interface contract says): the per-target reasons are read with GET /posts/:id, or
 * received one by one as post.target.failed.
 */
export function buildWebhookPayload(input: WebhookPayloadInput): string {
  return buildEventPayload({
    event: input.event,
    accountId: input.accountId,
    postId: input.postId,
    timestamp: input.timestamp,
    data: outcomeData(input),
    eventId: input.eventId,
  });
}
