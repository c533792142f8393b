/** POST /social-accounts, GET /social-accounts, GET and DELETE /social-accounts/:id. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  connectSocialAccount,
  deleteSocialAccount,
  getSocialAccount,
  listSocialAccounts,
  type PlatformCatalog,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  AUTH_ERRORS,
  BODY_ERRORS,
  Data,
  errors,
  IdParams,
  NoContent,
  PATH_ERRORS,
  WorkspaceField,
  WorkspaceQuery,
} from '../schemas/common.ts';
import {
  presentSocialAccount,
  presentSocialAccountDetail,
  SocialAccountDetailSchema,
  SocialAccountSchema,
} from '../schemas/social-accounts.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const connectBody = (catalog: PlatformCatalog) =>
  Type.Object(
    {
      platform: Type.Enum([...catalog.names]),
      sandbox: Type.Optional(
        Type.Boolean({
          description:
            'true: a sandbox connection (no token). Its posts never reach the platform: they end published with a sandbox- id, or as platform_options.<platform>.sandbox_outcome asks',
        }),
      ),
      external_id: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description:
            "The account's id on the platform (user id, page id, channel id...); required unless sandbox",
        }),
      ),
      display_name: Type.Optional(Type.String({ maxLength: 200 })),
      access_token: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 10_000,
          description: 'Required unless sandbox. Encrypted at rest; never returned',
        }),
      ),
      refresh_token: Type.Optional(
        Type.String({ maxLength: 10_000, description: 'Encrypted at rest; never returned' }),
      ),
      token_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
      workspace_id: WorkspaceField,
    },
    {
      additionalProperties: false,
      // A connection that calls its platform needs the account and its token.
      if: { properties: { sandbox: { const: true } }, required: ['sandbox'] },
      else: { required: ['external_id', 'access_token'] },
    },
  );

export const socialAccountRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps },
) => {
  app.post(
    '/social-accounts',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'createSocialAccount',
        summary: 'Connect a social account',
        description:
          'Registers a connection with its OAuth tokens (obtained by your app), or a sandbox connection (sandbox: true, no token). Tokens are encrypted at rest and never returned. To let the service run the OAuth flow, use POST /social-accounts/connect.',
        security: SECURED,
        body: connectBody(deps.platforms),
        response: {
          201: Data(SocialAccountSchema, 'The connection'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const ctx = await contextOf(deps, request, body.workspace_id);
      const connection = unwrap(
        await connectSocialAccount(deps, ctx, {
          platform: body.platform,
          externalId: body.external_id,
          displayName: body.display_name,
          accessToken: body.access_token,
          refreshToken: body.refresh_token,
          tokenExpiresAt: body.token_expires_at,
          sandbox: body.sandbox,
        }),
      );
      reply.header('Location', `/social-accounts/${connection.id}`);
      return reply.code(201).send({ data: presentSocialAccount(connection) });
    },
  );

  app.get(
    '/social-accounts',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'listSocialAccounts',
        summary: 'List connections',
        description:
          'The connections of your personal account or, with workspace_id, of a team; tokens are never returned.',
        security: SECURED,
        querystring: WorkspaceQuery,
        response: {
          200: Data(Type.Array(SocialAccountSchema), 'The connections of the account'),
          ...errors(...AUTH_ERRORS, 400, 403),
        },
      },
    },
    async (request) => {
      const ctx = await contextOf(deps, request, request.query.workspace_id);
      return { data: (await listSocialAccounts(deps, ctx)).map(presentSocialAccount) };
    },
  );

  app.get(
    '/social-accounts/:id',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'getSocialAccount',
        summary: 'Get a connection and its rate-limit state',
        description:
          "rate_limit: the connection's budget on its platform as this service paces it (null for sandbox connections and platforms not paced)",
        security: SECURED,
        params: IdParams('Connection id'),
        response: {
          200: Data(SocialAccountDetailSchema, 'The connection'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => {
      const detail = unwrap(await getSocialAccount(deps, actorOf(request), request.params.id));
      return { data: presentSocialAccountDetail(detail) };
    },
  );

  app.delete(
    '/social-accounts/:id',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'deleteSocialAccount',
        summary: 'Disconnect a social account',
        description:
          'Deletes the connection and its tokens. Posts already published through it keep their history.',
        security: SECURED,
        params: IdParams('Connection id'),
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, ...PATH_ERRORS) },
      },
    },
    async (request, reply) => {
      unwrap(await deleteSocialAccount(deps, actorOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
};
