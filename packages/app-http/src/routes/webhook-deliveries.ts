/**
 * A webhook's deliveries: GET /webhooks/:id/deliveries (newest first, with their attempts) and
 * POST .../deliveries/:delivery_id/redeliver. The subscriptions themselves are in webhooks.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listDeliveries, MAX_DELIVERY_LIST, redeliver } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import {
  DeliverySchema,
  DeliveryWithAttemptsSchema,
  presentDelivery,
  presentDeliveryWithAttempts,
} from '../schemas/webhooks.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const WebhookIdParams = IdParams('Webhook id');

const DeliveryParams = Type.Object({
  id: Type.String({ description: 'Webhook id' }),
  delivery_id: Type.String({ description: 'Delivery id' }),
});

const DeliveriesQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_DELIVERY_LIST,
      description: 'Newest first; default 100',
    }),
  ),
});

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps },
) => {
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries',
        description: 'Recent deliveries of a webhook, newest first, each with its attempt log.',
        security: SECURED,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Data(Type.Array(DeliveryWithAttemptsSchema), 'Deliveries, newest first'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => {
      const deliveries = unwrap(
        await listDeliveries(deps, actorOf(request), request.params.id, request.query.limit ?? 100),
      );
      return { data: deliveries.map(presentDeliveryWithAttempts) };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'redeliverWebhookDelivery',
        summary: 'Redeliver',
        description:
          'Sends a delivery again: same id and payload, a new round of attempts starting now. The webhook must be active (else 409).',
        security: SECURED,
        params: DeliveryParams,
        response: {
          202: Data(DeliverySchema, 'The delivery, pending again'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409),
        },
      },
    },
    async (request, reply) => {
      const { id, delivery_id: deliveryId } = request.params;
      const delivery = unwrap(await redeliver(deps, actorOf(request), id, deliveryId));
      return reply.code(202).send({ data: presentDelivery(delivery) });
    },
  );
};
