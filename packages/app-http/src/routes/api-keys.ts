/** POST /api-keys, GET /api-keys, DELETE /api-keys/:id. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey, listApiKeys, MAX_NAME_LENGTH, revokeApiKey } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  ApiKeySchema,
  CreatedApiKeySchema,
  presentApiKey,
  presentCreatedApiKey,
} from '../schemas/api-keys.ts';
import {
  Data,
  IdParams,
  NO_STORE_HEADERS,
  NoContent,
  WorkspaceField,
  withHeaders,
} from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { addAccountListRoute } from './account-list-route.ts';
import { type RouteOptions, SECRET_CACHE_CONTROL, SECURED } from './route-options.ts';

const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_LENGTH,
      description: `Friendly name, 1-${MAX_NAME_LENGTH} characters`,
    }),
    workspace_id: WorkspaceField,
  },
  { additionalProperties: false },
);

export const apiKeyRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/api-keys',
    {
      schema: {
        tags: ['API keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          'Issues a key for your personal account or, with workspace_id, for a team (owners and admins only: 403 for a member). A team key acts for its creator: it answers 401 once the creator leaves the team, 403 while the creator is a plain member. The raw key is in this response only; the service keeps its SHA-256 hash. At most 10 keys per account (409 limit_exceeded).',
        security: SECURED,
        body: CreateApiKeyBody,
        response: {
          201: withHeaders(
            Data(CreatedApiKeySchema, 'The new key, with the raw key shown once'),
            NO_STORE_HEADERS,
          ),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const ctx = await contextOf(deps, request, request.body.workspace_id);
      const { key, rawKey } = unwrap(await createApiKey(deps, ctx, { name: request.body.name }));
      reply.header('Location', `/api-keys/${key.id}`).header('Cache-Control', SECRET_CACHE_CONTROL);
      return reply.code(201).send({ data: presentCreatedApiKey(key, rawKey) });
    },
  );

  addAccountListRoute(app, deps, {
    path: '/api-keys',
    tag: 'API keys',
    operationId: 'listApiKeys',
    summary: 'List API keys',
    description:
      'The keys of your personal account or of a team (owners and admins see every key of the team, a member only their own). Raw keys are never shown.',
    item: ApiKeySchema,
    listed: 'The keys of the account',
    list: listApiKeys,
    present: presentApiKey,
  });

  app.delete(
    '/api-keys/:id',
    {
      schema: {
        tags: ['API keys'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          "Deletes the key at once. A team key may be revoked by the team's owners and admins, or by its creator.",
        security: SECURED,
        params: IdParams('API key id'),
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 403) },
      },
    },
    async (request, reply) => {
      unwrap(await revokeApiKey(deps, actorOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
};
