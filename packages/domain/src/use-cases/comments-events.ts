/**
 * `comment.received`: one event per new comment written by someone else (our own replies are
 * not news), built in the same unit of work that stores the comment, so a comment is announced
 * exactly when it is stored: never twice (it is stored once), never lost to a crash between the
 * two. Opt-in like every event; a webhook filtered by connection receives only its connections'.
 */
import type { StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import type { WebhookDelivery } from '../model.ts';
import type { Repositories } from '../ports/index.ts';
import { reachesConnections } from '../rules/webhook-rules.ts';
import { pendingDeliveries } from './pending-deliveries.ts';

const EVENT = 'comment.received';

/** The payload's `data`, in its documented order. */
export const commentReceivedData = (comment: StoredComment) => ({
  target_id: comment.targetId,
  platform: comment.platform,
  social_account_id: comment.socialAccountId,
  comment_id: comment.platformCommentId,
  author: comment.author.handle ?? comment.author.name,
  text: comment.text,
  created_at: comment.createdAt.toISOString(),
});

/** The deliveries announcing `comments` (already stored as new), stored through `repos`. */
export async function storeCommentEvents(
  deps: Pick<CoreDeps, 'ids' | 'clock'>,
  repos: Repositories,
  comments: readonly StoredComment[],
): Promise<WebhookDelivery[]> {
  const news = comments.filter((comment) => !comment.mine);
  if (news.length === 0) return [];
  const now = deps.clock.now();
  const webhooks = await repos.webhooks.listActiveForEvent(news[0]?.accountId ?? '', EVENT);
  const created: WebhookDelivery[] = [];
  for (const comment of news) {
    const receivers = webhooks.filter((webhook) =>
      reachesConnections(webhook, [comment.socialAccountId]),
    );
    created.push(
      ...pendingDeliveries(
        deps,
        receivers,
        {
          accountId: comment.accountId,
          postId: comment.postId,
          event: EVENT,
          data: commentReceivedData(comment),
        },
        now,
      ),
    );
  }
  if (created.length > 0) await repos.deliveries.insertMany(created);
  return created;
}
