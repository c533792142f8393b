// What Google's APIs (YouTube, Business Profile) share to connect and renew: OAuth 2.0 for web
// server apps (developers.google.com/identity/protocols/oauth2/web-server) with PKCE, one token
// endpoint for the code exchange and the refresh, and the granular consent's unticked scope.
import type { GrantedTokens } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  clientTokenEndpoint,
  OAuthStepError,
  publisherRefresher,
  refreshGrant,
} from '../shared/oauth.ts';

/** The settings of a Google network that connecting reads (oauthSettings). */
export interface GoogleClientSettings {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  authBaseUrl: string;
  tokenBaseUrl: string;
}

/**
 * POST `${tokenBaseUrl}/token` (form, client_id + client_secret): the code exchange and the
 * refresh share it. Null when the client id or secret is not set.
 */
export function googleTokenEndpoint(settings: GoogleClientSettings, runtime: PublisherRuntime) {
  const { clientId, clientSecret } = settings;
  return clientTokenEndpoint(
    runtime,
    `${settings.tokenBaseUrl}/token`,
    { client_id: clientId ?? '', client_secret: clientSecret ?? '' },
    { configured: Boolean(clientId && clientSecret) },
  );
}

/**
 * The publisher's renewal on a 401: the same refresh_token request as the connector's. Google
 * answers no new refresh token (null: the stored one stays); invalid_grant (revoked, expired,
 * password changed) means the user must re-authorise.
 */
export const googleRefresher = (
  settings: GoogleClientSettings,
  runtime: PublisherRuntime,
  label: string,
) => publisherRefresher(refreshGrant(googleTokenEndpoint(settings, runtime), label));

/** The consent page for `scope`, with a refresh token asked for again on every consent. */
export const googleConsent = (settings: GoogleClientSettings, scope: string) => ({
  url: `${settings.authBaseUrl}/o/oauth2/v2/auth`,
  params: {
    client_id: settings.clientId ?? '',
    scope,
    // Google sends a refresh token on the first consent only, unless asked for again.
    access_type: 'offline',
    prompt: 'consent',
  },
});

/**
 * Google's granular consent lets the user untick a scope: without `scope` the connection could
 * not do its work, so the connect fails now and says which `permission` to allow.
 */
export function requireGrantedScope(
  tokens: GrantedTokens,
  scope: string,
  label: string,
  permission: string,
): void {
  if (tokens.scopes.length > 0 && !tokens.scopes.includes(scope)) {
    throw new OAuthStepError(
      'scope_not_granted',
      `${label}: the permission to ${permission} was not granted; connect again and allow it`,
      'error',
    );
  }
}
