// Pinterest OAuth 2.0 (developers.pinterest.com "Authentication", "Generate an access token"):
// consent on www.pinterest.com/oauth/, the code exchange and the refresh on POST
// /v5/oauth/token with HTTP Basic client authentication, the user from GET /v5/user_account.
// Pinterest does not document PKCE; the shared connector sends the challenge and the verifier
// anyway, which an authorization server ignores when it does not know them (RFC 6749 3.1, 3.2).
// Our browser-binding cookie protects the flow either way.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString } from '../shared/http.ts';
import { missingClientSettings } from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { pinterestTokenEndpoint } from './api.ts';
import { PINTEREST_SETTINGS, type PinterestSettings } from './settings.ts';

/** Publishing needs pins:write and boards:read; the account and Pins are read back. */
export const PINTEREST_SCOPES = [
  'boards:read',
  'pins:read',
  'pins:write',
  'user_accounts:read',
] as const;

const LABEL = 'Pinterest';

export function createPinterestOAuth(
  settings: PinterestSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** GET /v5/user_account: who consented (username; id when Pinterest includes it). */
  async function userAccount(accessToken: string, signal: AbortSignal) {
    const what = `${LABEL} user account`;
    const url = `${settings.apiBaseUrl}/v5/user_account`;
    const { ok, status, body } = await identityGet(runtime, url, accessToken, signal, what);
    const username = asString(body.username);
    if (ok && username) {
      // The username is what Pinterest's pages are named by; the id, when given, is stabler.
      return { externalId: asString(body.id) ?? username, displayName: username };
    }
    throw identityError(what, status, {
      code: body.code === undefined ? undefined : `pinterest_${asString(body.code)}`,
      message: asString(body.message),
      refused: status === 401,
    });
  }

  return createOAuthConnector({
    platform: 'pinterest',
    label: LABEL,
    missingSettings: missingClientSettings(PINTEREST_SETTINGS, settings),
    tokenEndpoint: pinterestTokenEndpoint(settings, runtime),
    consent: {
      url: `${settings.authBaseUrl}/oauth/`,
      // Scopes are comma-separated on Pinterest's consent page.
      params: { client_id: settings.clientId ?? '', scope: PINTEREST_SCOPES.join(',') },
    },
    async identify({ tokens }, signal) {
      const user = await userAccount(tokens.accessToken, signal);
      return [{ externalId: user.externalId, displayName: user.displayName, tokens }];
    },
  });
}
