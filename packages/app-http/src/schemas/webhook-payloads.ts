/**
 * The body of each event's delivery (docs/api.md#webhook-payload), for the OpenAPI document's
 * `webhooks` section and the typed client. Keys in the order the service writes them
 * (domain event-payload.ts): `event`, `account_id`, what it is about, `timestamp`, `data`,
 * `event_id`. Events the catalogue lists before anything sends them are described as they
 * will be sent.
 */
import { POST_STATUSES, WEBHOOK_EVENTS, type WebhookEvent } from '@social-publisher/domain';
import { type TObject, type TSchema, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';
import { MetricValuesSchema } from './metrics.ts';

const Platform = () =>
  Type.String({ description: 'The platform name, as in POST /posts platforms' });

const TargetFields = {
  target_id: Uuid('The post target (post_targets[].id of GET /posts/{id})'),
  platform: Platform(),
  social_account_id: Uuid('The connection the target goes to'),
};

const PostState = Type.Object({
  status: Type.Enum([...POST_STATUSES], { description: 'The post status after the change' }),
  scheduled_at: Nullable(Timestamp('null for an immediate post')),
  targets: Type.Array(Type.Object(TargetFields)),
});

const Counts = Type.Object({
  published: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
});

/** What each event's `data` holds. */
const DATA: Record<WebhookEvent, TObject> = {
  'post.created': PostState,
  'post.updated': PostState,
  'post.cancelled': PostState,
  'post.published': Counts,
  'post.partial': Counts,
  'post.failed': Type.Object({
    failed: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0 }),
  }),
  'post.target.published': Type.Object({
    ...TargetFields,
    platform_post_id: Nullable(Type.String({ description: 'The id on the platform' })),
    platform_url: Nullable(Type.String({ description: 'Where the post is seen' })),
  }),
  'post.target.failed': Type.Object({
    ...TargetFields,
    error_code: Nullable(Type.String()),
    error_message: Nullable(Type.String()),
  }),
  'post.unpublished': Type.Object({
    removed: Type.Integer({ minimum: 0, description: 'Targets taken down (or already gone)' }),
    failed: Type.Integer({ minimum: 0, description: 'Targets whose delete failed for good' }),
    unsupported: Type.Integer({
      minimum: 0,
      description: 'Targets whose platform offers no delete (they stay published)',
    }),
    total: Type.Integer({ minimum: 0, description: 'Targets asked to be taken down' }),
  }),
  'post.approval_requested': Type.Object({
    user_id: Uuid('The member who created or edited the post'),
  }),
  'post.approved': Type.Object({ user_id: Uuid('The owner or admin who approved it') }),
  'post.rejected': Type.Object({
    user_id: Uuid('The owner or admin who rejected it'),
    reason: Type.String({ description: 'Why, as given (the post shows it as rejection_reason)' }),
  }),
  'post.metrics_updated': Type.Object({
    targets: Type.Array(
      Type.Object({
        target_id: TargetFields.target_id,
        platform: Platform(),
        metrics: MetricValuesSchema,
      }),
      { description: 'The targets whose numbers changed in this read' },
    ),
  }),
  'social_account.connected': Type.Object({
    display_name: Nullable(Type.String()),
    sandbox: Type.Boolean(),
    reconnected: Type.Boolean({ description: 'true: a connection the account already had' }),
  }),
  'social_account.expired': Type.Object({
    reason: Type.String({ description: "Why: the platform's refusal, as a sentence" }),
  }),
  'social_account.disconnected': Type.Object({ display_name: Nullable(Type.String()) }),
  'comment.received': Type.Object({
    ...TargetFields,
    comment_id: Type.String({ description: 'The comment id on the platform' }),
    author: Nullable(Type.String()),
    text: Type.String(),
    created_at: Timestamp(),
  }),
};

/** What an event is about, right after `account_id`. */
function subjectFields(event: WebhookEvent): Record<string, TSchema> {
  if (event.startsWith('social_account.')) {
    return { social_account_id: Uuid('The connection'), platform: Platform() };
  }
  return { post_id: Uuid('The post') };
}

/** The component name of an event's payload: post.target.failed -> PostTargetFailedPayload. */
export const payloadSchemaName = (event: WebhookEvent): string =>
  `${event
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Payload`;

/** The full body of one event's delivery. */
export function webhookPayloadSchema(event: WebhookEvent): TObject {
  return Type.Object(
    {
      event: Type.Literal(event),
      account_id: Uuid('The account (personal or workspace) the webhook belongs to'),
      ...subjectFields(event),
      timestamp: Timestamp('When the event happened; every attempt sends the same bytes'),
      data: DATA[event],
      event_id: Uuid(
        'One id per event: the same in the delivery to every webhook (webhook-id is the delivery)',
      ),
    },
    { description: `The body of a ${event} delivery` },
  );
}

/** When each event is sent (docs/api.md#webhook-events). */
export const WEBHOOK_EVENT_WHEN: Record<WebhookEvent, string> = {
  'post.created': 'A post was created (POST /posts, bulk, import, queue, or a series occurrence).',
  'post.updated': 'A post was edited (PATCH /posts/{id}).',
  'post.cancelled': 'A post was cancelled before it started publishing.',
  'post.published': 'A post reached its outcome and every target published.',
  'post.partial': 'A post reached its outcome with some targets published and some not.',
  'post.failed': 'A post reached its outcome and no target published.',
  'post.target.published': "One target's publication was recorded.",
  'post.target.failed': "One target's failure was recorded (it will not be retried).",
  'post.unpublished': 'Every target asked to be taken down (POST /posts/:id/unpublish) has ended.',
  'post.approval_requested':
    "A member's post waits for approval (created, or an approved post edited by a member).",
  'post.approved': 'A post waiting for approval was approved (POST /posts/{id}/approve).',
  'post.rejected': 'A post waiting for approval was rejected (POST /posts/{id}/reject).',
  'post.metrics_updated': "A read of a published post's numbers found them changed.",
  'social_account.connected': 'A connection was made, or made again (every connect path).',
  'social_account.expired': 'A connection became expired (the platform refused its token).',
  'social_account.disconnected': 'A connection was deleted (DELETE /social-accounts/{id}).',
  'comment.received':
    'A comment by someone else was read under a published target (once per comment).',
};

/** Every event with its payload schema, in the catalogue's order. */
export const WEBHOOK_PAYLOADS = WEBHOOK_EVENTS.map((event) => ({
  event,
  name: payloadSchemaName(event),
  when: WEBHOOK_EVENT_WHEN[event],
  schema: webhookPayloadSchema(event),
}));
