/**
 * Connecting real accounts (docs/connect.md#the-flow): POST /social-accounts/connect (authenticated)
 * and GET /oauth/callback/:platform (public: the state, with the cookie of the browser that
 * opened the consent, is the credential). The consent route is in oauth-authorize.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type CoreDeps,
  completeConnect,
  MAX_URL_LENGTH,
  type PlatformCatalog,
  startConnect,
} from '@social-publisher/domain';
import { type TSchema, Type } from 'typebox';
import { contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, Timestamp, WorkspaceField } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, ErrorSchema, errors } from '../schemas/error-responses.ts';
import { sendConnectResult } from './connect-answer.ts';
import { clearedFlowCookie, sentFlowCookie } from './connect-cookie.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

/**
 * The body: the platform, and each platform's own connect fields (PlatformRules.connectFields,
 * e.g. Mastodon's `instance`), optional here: which are required, and for which platform, is
 * checked by the use case.
 */
const ConnectStartBody = (catalog: PlatformCatalog) => {
  const extra: Record<string, TSchema> = {};
  for (const name of catalog.names) {
    for (const [field, schema] of Object.entries(
      catalog.rules(name)?.connectFields?.properties ?? {},
    )) {
      extra[field] ??= Type.Optional(Type.Unsafe<unknown>({ ...schema }));
    }
  }
  return Type.Object(
    {
      platform: Type.Enum([...catalog.names]),
      return_url: Type.Optional(
        Type.String({
          maxLength: MAX_URL_LENGTH,
          description:
            'Where the browser goes after the callback, with ?social_account_ids=&platform= or ?error=&error_description=. Must be under one of CONNECT_RETURN_ORIGINS.',
        }),
      ),
      workspace_id: WorkspaceField,
      ...extra,
    },
    { additionalProperties: false },
  );
};

const ConnectStartSchema = Type.Object({
  authorization_url: Type.String({
    description:
      "Send the user's browser here: it binds the flow to that browser (a cookie), then redirects to the platform's consent page. Single browser: the callback refuses another one.",
  }),
  state: Type.String({ description: 'Single-use; comes back on the callback' }),
  expires_at: Timestamp('The consent must be completed before this (10 minutes)'),
});

export const connectRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/social-accounts/connect',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'startConnect',
        summary: 'Start connecting an account (OAuth)',
        description:
          "Answers the platform's consent URL. After consent the platform sends the browser to GET /oauth/callback/{platform}, which creates the connection(s) on this account. 400 platform_not_configured names the variables to set.",
        security: SECURED,
        body: ConnectStartBody(deps.platforms),
        response: {
          201: Data(ConnectStartSchema, 'The consent URL'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403),
        },
      },
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, ...input } = request.body;
      const ctx = await contextOf(deps, request, workspaceId);
      const started = unwrap(await startConnect(deps, ctx, input));
      return reply.code(201).send({
        data: {
          authorization_url: started.authorizationUrl,
          state: started.state,
          expires_at: started.expiresAt.toISOString(),
        },
      });
    },
  );
};

const HtmlPage = Type.String({ description: 'A small HTML page (Content-Type: text/html)' });

/**
 * The router's answer to a platform segment longer than any path parameter it takes (200
 * characters), before the route runs: not_found in the JSON envelope.
 */
const PlatformNotFound = {
  description: 'not_found (JSON): a platform name longer than the router takes (200 characters)',
  content: { 'application/json': { schema: ErrorSchema } },
};

/** A refusal answered as the small HTML page to a browser, or as JSON for a malformed query. */
const htmlOrJsonError = (description: string) => ({
  description,
  content: {
    'text/html': { schema: HtmlPage },
    'application/json': { schema: ErrorSchema },
  },
});

/**
 * Bounds of what a platform sends back to the callback: codes and descriptions are a few
 * hundred characters on every platform, and our state is 43; the rest is somebody else's.
 */
const MAX_CALLBACK_TEXT = 4096;
export const MAX_OAUTH_STATE_LENGTH = 512;
/** A platform name in a path: longer than any known one, short enough to refuse junk early. */
export const MAX_PLATFORM_PARAM_LENGTH = 64;

/** The path of a public route a browser opens in a connect flow (the consent, the callback). */
export const FlowPlatformParams = Type.Object({
  platform: Type.String({ maxLength: MAX_PLATFORM_PARAM_LENGTH }),
});

/**
 * The answers of a public route a browser opens in a connect flow: an HTML page (200) or a
 * redirect (302), a refusal as a page or as JSON (400), the router's not_found, and the limits.
 */
export const flowResponses = (descriptions: {
  page: string;
  redirect: string;
  refused: string;
}) => ({
  200: {
    description: descriptions.page,
    content: { 'text/html': { schema: HtmlPage } },
  },
  302: Type.Null({ description: descriptions.redirect }),
  400: htmlOrJsonError(descriptions.refused),
  404: PlatformNotFound,
  ...errors(429, 500),
});

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: MAX_CALLBACK_TEXT })),
    state: Type.Optional(Type.String({ maxLength: MAX_OAUTH_STATE_LENGTH })),
    error: Type.Optional(Type.String({ maxLength: MAX_OAUTH_STATE_LENGTH })),
    error_description: Type.Optional(Type.String({ maxLength: MAX_CALLBACK_TEXT })),
  },
  // Platforms add their own parameters (scope, error_reason, granted_scopes...).
  { additionalProperties: true },
);

export interface CallbackOptions {
  deps: CoreDeps;
  /** Limits callbacks per client address (the route is public). */
  limit(ip: string, reply: unknown): Promise<void>;
}

export const oauthCallbackRoutes: FastifyPluginAsyncTypebox<CallbackOptions> = async (
  app,
  { deps, limit },
) => {
  app.get(
    '/oauth/callback/:platform',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'completeConnect',
        summary: 'OAuth callback (the platform redirects the browser here)',
        description:
          'Public: the single-use state is the credential, accepted only from the browser that opened authorization_url (its cookie). Redirects (302) to the return_url of the flow, or answers a small HTML page saying what happened.',
        params: FlowPlatformParams,
        querystring: CallbackQuery,
        response: flowResponses({
          page: 'HTML page: the account(s) connected',
          redirect:
            'Redirect to return_url, with social_account_ids and platform, or error and error_description, added to its query',
          refused:
            'HTML page saying why the account was not connected (a flow without return_url), or validation_failed (JSON) for a malformed query',
        }),
      },
      preHandler: async (request, reply) => limit(request.ip, reply),
    },
    async (request, reply) => {
      const { platform } = request.params;
      const { state } = request.query;
      const cookie = sentFlowCookie(request.headers.cookie, state);
      const result = await completeConnect(deps, platform, request.query, cookie);
      // The state is used up whatever the outcome: its cookie goes too.
      if (state) reply.header('Set-Cookie', clearedFlowCookie(deps.settings.publicBaseUrl, state));
      return sendConnectResult(reply, result);
    },
  );
};
