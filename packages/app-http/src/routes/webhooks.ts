/** Webhook subscriptions: create, list, enable or disable, delete. Deliveries: webhook-deliveries.ts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  MAX_URL_LENGTH,
  MAX_WEBHOOK_CONNECTIONS,
  setWebhookActive,
  WEBHOOK_EVENTS,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  Data,
  IdParams,
  NO_STORE_HEADERS,
  NoContent,
  Uuid,
  WorkspaceField,
  withHeaders,
} from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import {
  CreatedWebhookSchema,
  presentCreatedWebhook,
  presentWebhook,
  WebhookEventSchema,
  WebhookSchema,
  WebhookStateSchema,
} from '../schemas/webhooks.ts';
import { addAccountListRoute } from './account-list-route.ts';
import { type RouteOptions, SECRET_CACHE_CONTROL, SECURED } from './route-options.ts';

const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      // Schemes are case-insensitive; plain http is accepted only where the operator allows it.
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: MAX_URL_LENGTH,
      description:
        'An absolute https URL (http only on a server started with WEBHOOK_ALLOW_HTTP); private and internal addresses are rejected',
    }),
    events: Type.Array(WebhookEventSchema, {
      minItems: 1,
      // Every event may be asked for once: social_account.expired as well as the post events.
      maxItems: WEBHOOK_EVENTS.length,
      description: `Any of ${WEBHOOK_EVENTS.join(', ')}, each once`,
    }),
    social_account_ids: Type.Optional(
      Type.Array(Uuid(), {
        minItems: 1,
        maxItems: MAX_WEBHOOK_CONNECTIONS,
        description: `Only events about these connections (of the webhook's account) are sent: 1 to ${MAX_WEBHOOK_CONNECTIONS} social account ids, each once. Omitted: every event of the account.`,
      }),
    ),
    workspace_id: WorkspaceField,
  },
  { additionalProperties: false },
);

const UpdateWebhookBody = Type.Object(
  { active: Type.Boolean({ description: 'true enables, false disables' }) },
  { additionalProperties: false },
);

const WebhookIdParams = IdParams('Webhook id');

export const webhookRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  addAccountListRoute(app, deps, {
    path: '/webhooks',
    tag: 'Webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    description: 'The subscriptions of your personal account or, with workspace_id, of a team.',
    item: WebhookSchema,
    listed: 'The subscriptions (secrets are not shown)',
    list: listWebhooks,
    present: presentWebhook,
  });

  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'createWebhook',
        summary: 'Create a webhook',
        description:
          "Subscribes an HTTPS URL to events. The secret that signs deliveries is in this response only. Each post event delivery is `{ event, account_id, post_id, timestamp, data, event_id }` (a connection event has `social_account_id` and `platform` in place of `post_id`); `event_id` is the same in every webhook's delivery of one event. Every event's payload is described in this document's `webhooks` section. On post.published, post.partial and post.failed, `data` holds the counts `published` (absent on post.failed), `failed` and `total`, nothing else: the status and error of each target are read with GET /posts/{id} or received as post.target.failed. On post.metrics_updated (numbers read that differ from the ones before), `data` is `{ targets: [{ target_id, platform, metrics }] }`, the changed targets only.",
        security: SECURED,
        body: CreateWebhookBody,
        response: {
          201: withHeaders(
            Data(CreatedWebhookSchema, 'The new subscription, active, with its secret'),
            NO_STORE_HEADERS,
          ),
          // 409 limit_exceeded: WEBHOOKS_MAX_PER_ACCOUNT.
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, ...input } = request.body;
      const ctx = await contextOf(deps, request, workspaceId);
      const webhook = unwrap(await createWebhook(deps, ctx, input));
      reply
        .header('Location', `/webhooks/${webhook.id}`)
        .header('Cache-Control', SECRET_CACHE_CONTROL);
      return reply.code(201).send({ data: presentCreatedWebhook(webhook) });
    },
  );

  addGetWebhookRoute(app, deps);

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'updateWebhook',
        summary: 'Enable or disable a webhook',
        description:
          'A disabled webhook is sent nothing: a delivery that comes due meanwhile ends failed (webhook disabled). Enabling it again applies to deliveries from then on.',
        security: SECURED,
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: {
          200: Data(WebhookStateSchema, 'The id and the new state'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 404),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const webhook = unwrap(
        await setWebhookActive(deps, actor, request.params.id, request.body.active),
      );
      return { data: { id: webhook.id, active: webhook.active } };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        description: 'Deletes the subscription and its deliveries; nothing more is sent to it.',
        security: SECURED,
        params: WebhookIdParams,
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, ...PATH_ERRORS) },
      },
    },
    async (request, reply) => {
      unwrap(await deleteWebhook(deps, actorOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
};

/** GET /webhooks/:id: one subscription, with why it is off when the service turned it off. */
function addGetWebhookRoute(app: Parameters<typeof webhookRoutes>[0], deps: RouteOptions['deps']) {
  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        description:
          'The subscription (no secret), with `disabled_reason` when the service turned it off.',
        security: SECURED,
        params: WebhookIdParams,
        response: {
          200: Data(WebhookSchema, 'The subscription'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentWebhook(unwrap(await getWebhook(deps, actorOf(request), request.params.id))),
    }),
  );
}
