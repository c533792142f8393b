// X API v2 OAuth 2.0 Authorization Code with PKCE (docs.x.com "OAuth 2.0 Authorization Code
// Flow with PKCE"): consent on x.com, tokens on api.x.com (HTTP Basic for confidential
// clients), identity from /2/users/me. Refresh tokens rotate: the new one replaces the old.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  basicAuth,
  clientTokenEndpoint,
  invalidGrant,
  missingClientSettings,
  type RefusalRule,
  refreshGrant,
  type TokenRenewal,
} from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { TWITTER_SETTINGS, type TwitterSettings } from './settings.ts';

export const X_SCOPES = [
  'tweet.read',
  'tweet.write',
  'users.read',
  'media.write',
  // Hiding others' replies under the account's posts (the comments inbox).
  'tweet.moderate.write',
  'offline.access',
] as const;

const LABEL = 'X';

/**
 * X refuses a spent, revoked or unknown refresh token with 400 `invalid_request` "Value passed
 * for the token was invalid." (not invalid_grant); both end the grant.
 */
const xRefused: RefusalRule = (error, description, status) =>
  invalidGrant(error, description, status) ||
  (error === 'invalid_request' && /\btoken\b.*\binvalid\b/i.test(description ?? ''));

/**
 * POST /2/oauth2/token (form) as a confidential client: HTTP Basic client_id:client_secret,
 * client_id in the form too. The code exchange and the refresh share it; null when unset.
 */
export function xTokenEndpoint(settings: TwitterSettings, runtime: PublisherRuntime) {
  const { clientId, clientSecret } = settings;
  const configured = Boolean(clientId && clientSecret);
  return clientTokenEndpoint(
    runtime,
    `${settings.tokenBaseUrl}/2/oauth2/token`,
    { client_id: clientId ?? '' },
    {
      configured,
      headers: configured ? { authorization: basicAuth(clientId ?? '', clientSecret ?? '') } : {},
      refused: xRefused,
    },
  );
}

/**
 * grant_type=refresh_token (needs offline.access). X rotates refresh tokens: the answer's one
 * replaces the stored one, the old one is spent. The connector's refresh is this same request.
 */
export const xRenewal = (
  settings: TwitterSettings,
  runtime: PublisherRuntime,
): TokenRenewal | null => refreshGrant(xTokenEndpoint(settings, runtime), LABEL);

export function createTwitterOAuth(
  settings: TwitterSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** GET /2/users/me: who consented. */
  async function me(accessToken: string, signal: AbortSignal) {
    const what = `${LABEL} identity`;
    const url = `${settings.apiBaseUrl}/2/users/me`;
    const { ok, status, body } = await identityGet(runtime, url, accessToken, signal, what);
    const data = isRecord(body.data) ? body.data : undefined;
    const id = data ? asString(data.id) : undefined;
    if (ok && data && id) {
      const username = asString(data.username);
      return { id, displayName: username ? `@${username}` : (asString(data.name) ?? null) };
    }
    throw identityError(what, status, {
      code: asString(body.title),
      message: asString(body.detail),
    });
  }

  return createOAuthConnector({
    platform: 'twitter',
    label: LABEL,
    missingSettings: missingClientSettings(TWITTER_SETTINGS, settings),
    tokenEndpoint: xTokenEndpoint(settings, runtime),
    consent: {
      url: `${settings.authBaseUrl}/i/oauth2/authorize`,
      params: { client_id: settings.clientId ?? '', scope: X_SCOPES.join(' ') },
    },
    async identify({ tokens }, signal) {
      const user = await me(tokens.accessToken, signal);
      return [{ externalId: user.id, displayName: user.displayName, tokens }];
    },
  });
}
