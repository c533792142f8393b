// X API v2 OAuth 2.0 Authorization Code with PKCE (docs.x.com "OAuth 2.0 Authorization Code
// Flow with PKCE"): consent on x.com, tokens on api.x.com (HTTP Basic for confidential
// clients), identity from /2/users/me. Refresh tokens rotate: the new one replaces the old.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  basicAuth,
  invalidGrant,
  missingClientSettings,
  notConfigured,
  OAuthStepError,
  oauthGet,
  oauthRefresh,
  type RefusalRule,
  runConnect,
  standardTokenRequest,
  type TokenRenewal,
} from '../shared/oauth.ts';
import { TWITTER_SETTINGS, type TwitterSettings } from './settings.ts';

export const X_SCOPES = [
  'tweet.read',
  'tweet.write',
  'users.read',
  'media.write',
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
  if (!clientId || !clientSecret) return null;
  const url = `${settings.tokenBaseUrl}/2/oauth2/token`;
  const headers = { authorization: basicAuth(clientId, clientSecret) };
  return (fields: Record<string, string>, signal: AbortSignal, what: string) =>
    standardTokenRequest(
      runtime,
      url,
      { ...fields, client_id: clientId },
      signal,
      what,
      headers,
      xRefused,
    );
}

/**
 * grant_type=refresh_token (needs offline.access). X rotates refresh tokens: the answer's one
 * replaces the stored one, the old one is spent. The publisher's renewal will use it too.
 */
export function xRenewal(
  settings: TwitterSettings,
  runtime: PublisherRuntime,
): TokenRenewal | null {
  const endpoint = xTokenEndpoint(settings, runtime);
  if (!endpoint) return null;
  return async (refreshToken, signal) => {
    const { tokens } = await endpoint(
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      signal,
      `${LABEL} token refresh`,
    );
    return tokens;
  };
}

export function createTwitterOAuth(
  settings: TwitterSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const missing = missingClientSettings(TWITTER_SETTINGS, settings);
  const tokenEndpoint = xTokenEndpoint(settings, runtime);

  /** GET /2/users/me: who consented. */
  async function me(accessToken: string, signal: AbortSignal) {
    const response = await oauthGet(
      runtime,
      `${settings.apiBaseUrl}/2/users/me`,
      signal,
      `${LABEL} identity`,
      {
        authorization: `Bearer ${accessToken}`,
      },
    );
    const body = isRecord(response.json) ? response.json : {};
    const data = isRecord(body.data) ? body.data : undefined;
    const id = data ? asString(data.id) : undefined;
    if (response.status >= 200 && response.status < 300 && data && id) {
      const username = asString(data.username);
      return { id, displayName: username ? `@${username}` : (asString(data.name) ?? null) };
    }
    const code = asString(body.title) ?? `http_${response.status}`;
    throw new OAuthStepError(
      code,
      `${LABEL} identity: ${asString(body.detail) ?? code}`,
      response.status >= 500 || response.status === 429 ? 'failed' : 'error',
    );
  }

  return {
    platform: 'twitter',
    missingSettings: missing,

    authorizationUrl(request) {
      return authorizationUrl(`${settings.authBaseUrl}/i/oauth2/authorize`, {
        response_type: 'code',
        client_id: settings.clientId ?? '',
        redirect_uri: request.redirectUri,
        scope: X_SCOPES.join(' '),
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange, signal) {
      if (!tokenEndpoint) return Promise.resolve(notConfigured(LABEL, missing));
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const { tokens } = await tokenEndpoint(
          {
            grant_type: 'authorization_code',
            code: exchange.code,
            redirect_uri: exchange.redirectUri,
            code_verifier: exchange.codeVerifier,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(tokens.accessToken, tokens.refreshToken ?? '');
        const user = await me(tokens.accessToken, active);
        return [{ externalId: user.id, displayName: user.displayName, tokens }];
      });
    },

    refresh: oauthRefresh(LABEL, xRenewal(settings, runtime)),
  };
}
