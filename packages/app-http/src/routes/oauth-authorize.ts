/**
 * GET /oauth/authorize/:platform?state=: the authorization_url of a connect flow. Binds the flow
 * to the browser that opens it (a cookie holding a nonce whose hash is stored with the state),
 * then redirects to the platform's consent page. Public, like the callback.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { openConsent } from '@social-publisher/domain';
import { Type } from 'typebox';
import {
  type CallbackOptions,
  FlowPlatformParams,
  flowResponses,
  MAX_OAUTH_STATE_LENGTH,
} from './connect.ts';
import { sendConnectResult } from './connect-answer.ts';
import { flowCookie, sentFlowCookie } from './connect-cookie.ts';

const AuthorizeQuery = Type.Object(
  { state: Type.Optional(Type.String({ maxLength: MAX_OAUTH_STATE_LENGTH })) },
  { additionalProperties: false },
);

export const oauthAuthorizeRoutes: FastifyPluginAsyncTypebox<CallbackOptions> = async (
  app,
  { deps, limit },
) => {
  app.get(
    '/oauth/authorize/:platform',
    {
      schema: {
        tags: ['Social accounts'],
        operationId: 'openConsent',
        summary: "Open a connect flow's consent (the authorization_url)",
        description:
          "Public. The first browser to open it gets the flow's cookie and a 302 to the platform's consent page; the same browser may open it again. Another browser, an unknown, used or expired state: the flow's return_url with ?error= when the browser is the flow's, else a small HTML page.",
        params: FlowPlatformParams,
        querystring: AuthorizeQuery,
        response: flowResponses({
          page: 'HTML page: why the consent cannot be opened',
          redirect: "Redirect to the platform's consent page",
          refused:
            'HTML page saying why the consent cannot be opened (another browser, an unknown, used or expired state), or validation_failed (JSON) for a malformed query',
        }),
      },
      preHandler: async (request, reply) => limit(request.ip, reply),
    },
    async (request, reply) => {
      const { platform } = request.params;
      const { state } = request.query;
      const cookie = sentFlowCookie(request.headers.cookie, state);
      const opening = await openConsent(deps, platform, state, cookie);
      if (!opening.ok) return sendConnectResult(reply, opening);
      return reply
        .code(302)
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .header(
          'Set-Cookie',
          flowCookie(
            deps.settings.publicBaseUrl,
            state as string,
            opening.browserNonce,
            opening.expiresAt,
            deps.clock.now(),
          ),
        )
        .header('Location', opening.platformUrl)
        .send(null);
    },
  );
};
