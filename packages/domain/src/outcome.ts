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

/** One target that did not publish, as `data.failures` describes it. */
export interface WebhookFailure {
  target_id: string;
  social_account_id: string;
  platform: string;
  error_code: string;
  error_message: string;
}

/**
 * The targets of a finished post that did not publish, with the platform's reason: what a
 * receiver of `post.failed` / `post.partial` would otherwise fetch with GET /posts/:id. A
 * cancelled target without an error says so.
 */
export function failuresOf(
  targets: ReadonlyArray<
    Pick<
      PostTarget,
      'id' | 'socialAccountId' | 'platform' | 'status' | 'errorCode' | 'errorMessage'
    >
  >,
): WebhookFailure[] {
  return targets
    .filter((target) => target.status !== 'published')
    .map((target) => ({
      target_id: target.id,
      social_account_id: target.socialAccountId,
      platform: target.platform,
      error_code: target.errorCode ?? (target.status === 'cancelled' ? 'cancelled' : 'unknown'),
      error_message:
        target.errorMessage ??
        (target.status === 'cancelled' ? 'the target was cancelled' : 'no reason was recorded'),
    }));
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
  /** The targets that did not publish: sent as `data.failures` on post.failed and post.partial. */
  failures?: WebhookFailure[];
}

/**
 * The exact JSON body of a delivery, keys in the documented order (docs/api.md#webhook-payload). These are the bytes that are signed
 * and stored, so they are built once and never re-serialised. `data.failures` comes after
 * the counts, which are unchanged; post.published has none to carry.
 */
export function buildWebhookPayload(input: WebhookPayloadInput): string {
  const counts =
    input.event === 'post.failed'
      ? { failed: input.failed, total: input.total }
      : { published: input.published, failed: input.failed, total: input.total };
  const failures = input.event === 'post.published' ? undefined : input.failures;
  const data = failures === undefined ? counts : { ...counts, failures };
  return JSON.stringify({
    event: input.event,
    account_id: input.accountId,
    post_id: input.postId,
    timestamp:
      typeof input.timestamp === 'string' ? input.timestamp : input.timestamp.toISOString(),
    data,
  });
}
