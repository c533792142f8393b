/** POST /social-accounts, GET /social-accounts, GET and DELETE /social-accounts/:id. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  connectSocialAccount,
  deleteSocialAccount,
  getSocialAccount,
  listSocialAccounts,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_TOKEN_LENGTH,
  type PlatformRegistry,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams, NoContent, WorkspaceField } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import {
  presentSocialAccount,
  presentSocialAccountDetail,
  SocialAccountDetailSchema,
  SocialAccountSchema,
} from '../schemas/social-accounts.ts';
import { addAccountListRoute } from './account-list-route.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

/**
 * The credential fields of every platform connected by credentials, each documented with the
 * platforms that take it (a field two platforms share is one property).
 */
function credentialFields(platforms: PlatformRegistry) {
  const fields = new Map<string, { maxLength: number; secret: boolean; notes: string[] }>();
  for (const name of platforms.names) {
    for (const field of platforms.credentials(name)?.fields ?? []) {
      const known = fields.get(field.name) ?? { maxLength: 0, secret: false, notes: [] };
      known.maxLength = Math.max(known.maxLength, field.maxLength);
      known.secret ||= field.secret;
      known.notes.push(`${name}: ${field.description}`);
      fields.set(field.name, known);
    }
  }
  return Object.fromEntries(
    [...fields].map(([name, field]) => [
      name,
      Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: field.maxLength,
          description: `Required for a platform connected by credentials (not a sandbox connection). ${field.notes.join('; ')}${field.secret ? ". Never logged or returned; kept only as the connection's encrypted token where it is one (a bot token), else only the tokens it buys are" : ''}`,
        }),
      ),
    ]),
  );
}

/** Platforms whose accounts connect by credentials: they take no token fields. */
const credentialPlatforms = (platforms: PlatformRegistry) =>
  platforms.names.filter((name) => platforms.credentials(name) !== undefined);

const connectBody = (platforms: PlatformRegistry) =>
  Type.Object(
    {
      platform: Type.Enum([...platforms.names]),
      sandbox: Type.Optional(
        Type.Boolean({
          description:
            'true: a sandbox connection (no token). Its posts never reach the platform: they end published with a sandbox- id, or as platform_options.<platform>.sandbox_outcome asks',
        }),
      ),
      external_id: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: MAX_EXTERNAL_ID_LENGTH,
          description:
            "The account's id on the platform (user id, page id, channel id...); required unless sandbox",
        }),
      ),
      display_name: Type.Optional(Type.String({ maxLength: MAX_EXTERNAL_ID_LENGTH })),
      access_token: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: MAX_TOKEN_LENGTH,
          description: 'Required unless sandbox. Encrypted at rest; never returned',
        }),
      ),
      refresh_token: Type.Optional(
        Type.String({
          maxLength: MAX_TOKEN_LENGTH,
          description: 'Encrypted at rest; never returned',
        }),
      ),
      token_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
      ...credentialFields(platforms),
      workspace_id: WorkspaceField,
    },
    {
      additionalProperties: false,
      // A connection that calls its platform needs the account and its token, or, for a
      // platform connected by credentials, those (the domain names the missing ones).
      if: { properties: { sandbox: { const: true } }, required: ['sandbox'] },
      else: unlessCredentials(platforms, { required: ['external_id', 'access_token'] }),
    },
  );

/** `tokens` unless the platform is one connected by credentials. */
function unlessCredentials(platforms: PlatformRegistry, tokens: Record<string, unknown>) {
  const names = credentialPlatforms(platforms);
  if (names.length === 0) return tokens;
  return {
    if: { properties: { platform: { enum: names } }, required: ['platform'] },
    else: tokens,
  };
}

/** The credential fields present in the body, by name. */
function credentialsOf(platforms: PlatformRegistry, body: Record<string, unknown>) {
  const names = new Set(
    platforms.names.flatMap((name) => platforms.credentials(name)?.fields ?? []).map((f) => f.name),
  );
  return Object.fromEntries(Object.entries(body).filter(([name]) => names.has(name)));
}

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
          'Registers a connection with its OAuth tokens (obtained by your app), a sandbox connection (sandbox: true, no token), or, for a platform connected by credentials (its fields are documented below, e.g. handle and app_password), the connection those credentials open: the service trades them for tokens at once (400 platform_auth_failed when the platform refuses them) and keeps only the tokens. Tokens are encrypted at rest and never returned. To let the service run the OAuth flow, use POST /social-accounts/connect.',
        security: SECURED,
        body: connectBody(deps.platforms),
        response: {
          201: Data(SocialAccountSchema, 'The connection'),
          // 409 limit_exceeded: SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT.
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
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
          credentials: credentialsOf(deps.platforms, body),
        }),
      );
      reply.header('Location', `/social-accounts/${connection.id}`);
      return reply.code(201).send({ data: presentSocialAccount(connection) });
    },
  );

  addAccountListRoute(app, deps, {
    path: '/social-accounts',
    tag: 'Social accounts',
    operationId: 'listSocialAccounts',
    summary: 'List connections',
    description:
      'The connections of your personal account or, with workspace_id, of a team; tokens are never returned.',
    item: SocialAccountSchema,
    listed: 'The connections of the account',
    list: listSocialAccounts,
    present: presentSocialAccount,
  });

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
