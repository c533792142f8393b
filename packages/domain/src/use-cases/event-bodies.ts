/**
 * What each event the service sends says (docs/api.md#webhook-events): its subject and its
 * small `data`, in the documented key order. The connections an event is about decide which
 * filtered webhooks receive it.
 */
import type { PostTarget, PostWithTargets, SocialAccount, WebhookEvent } from '../model.ts';
import type { EventToStore } from './event-deliveries.ts';

type PostLifecycleEvent = Extract<WebhookEvent, 'post.created' | 'post.updated' | 'post.cancelled'>;

/** The targets of a post as its events list them. */
const wireTargets = (targets: readonly PostTarget[]) =>
  targets.map((target) => ({
    target_id: target.id,
    platform: target.platform,
    social_account_id: target.socialAccountId,
  }));

/** The connections a post's events are about: those of its targets. */
const connectionsOf = (targets: readonly PostTarget[]) => [
  ...new Set(targets.map((target) => target.socialAccountId)),
];

/** post.created, post.updated, post.cancelled: the post's status, time and targets after the change. */
export function postEvent(event: PostLifecycleEvent, post: PostWithTargets): EventToStore {
  return {
    event,
    accountId: post.accountId,
    postId: post.id,
    data: {
      status: post.status,
      scheduled_at: post.scheduledAt?.toISOString() ?? null,
      targets: wireTargets(post.targets),
    },
    socialAccountIds: connectionsOf(post.targets),
  };
}

/**
 * post.target.published or post.target.failed, for a target whose terminal result was just
 * recorded: where it went, or why it failed.
 */
export function targetEvent(
  post: { id: string; accountId: string },
  target: PostTarget,
): EventToStore {
  const about = {
    target_id: target.id,
    platform: target.platform,
    social_account_id: target.socialAccountId,
  };
  const published = target.status === 'published';
  return {
    event: published ? 'post.target.published' : 'post.target.failed',
    accountId: post.accountId,
    postId: post.id,
    data: published
      ? { ...about, platform_post_id: target.platformPostId, platform_url: target.platformUrl }
      : { ...about, error_code: target.errorCode, error_message: target.errorMessage },
    socialAccountIds: [target.socialAccountId],
  };
}

type ConnectionEvent = Extract<WebhookEvent, `social_account.${string}`>;

/** A connection's event: named at the top of the payload, `data` as the event documents it. */
export function connectionEvent(
  event: ConnectionEvent,
  connection: Pick<SocialAccount, 'id' | 'accountId' | 'platform'>,
  data: object,
): EventToStore {
  return {
    event,
    accountId: connection.accountId,
    postId: null,
    connection: { id: connection.id, platform: connection.platform },
    data,
    socialAccountIds: [connection.id],
  };
}

/** social_account.connected: a new connection, or an existing one connected again. */
export function connectedEvent(
  connection: Pick<
    SocialAccount,
    'id' | 'accountId' | 'platform' | 'displayName' | 'sandbox' | 'createdAt' | 'updatedAt'
  >,
): EventToStore {
  return connectionEvent('social_account.connected', connection, {
    display_name: connection.displayName,
    sandbox: connection.sandbox,
    reconnected: connection.createdAt.getTime() !== connection.updatedAt.getTime(),
  });
}
