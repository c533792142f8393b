// The connector of a platform with a standard OAuth 2.0 code flow and PKCE S256 (RFC 6749,
// RFC 7636): a consent page, one token endpoint for the code exchange and the refresh, and the
// platform's own question of who consented. TikTok, YouTube and X are this; a new platform of
// the same kind declares only what differs.
import type { ConnectedIdentity, PlatformOAuth } from '@social-publisher/domain';
import {
  authorizationUrl,
  notConfigured,
  oauthRefresh,
  refreshGrant,
  runConnect,
  type StandardTokenAnswer,
  type TokenEndpoint,
} from './oauth.ts';

export interface OAuthConnectorSpec {
  platform: string;
  /** How people write the platform (messages). */
  label: string;
  /** The client settings that are not set (missingClientSettings): connect answers not configured. */
  missingSettings: string[];
  /** Null when the app's credentials are not set. */
  tokenEndpoint: TokenEndpoint | null;
  /** The consent page: its URL (auth host + the platform's path) and the platform's parameters
   * (client id, scopes...) besides response_type, redirect_uri, state and the PKCE challenge. */
  consent: { url: string; params: Record<string, string> };
  /** Who consented, from the code exchange's answer: the connections it makes. */
  identify(answer: StandardTokenAnswer, signal: AbortSignal): Promise<ConnectedIdentity[]>;
}

export function createOAuthConnector(spec: OAuthConnectorSpec): PlatformOAuth {
  const { label, missingSettings, tokenEndpoint } = spec;
  return {
    platform: spec.platform,
    missingSettings,

    authorizationUrl(request) {
      return authorizationUrl(spec.consent.url, {
        ...spec.consent.params,
        response_type: 'code',
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange, signal) {
      if (!tokenEndpoint) return Promise.resolve(notConfigured(label, missingSettings));
      return runConnect(label, [exchange.code], signal, async (active, secrets) => {
        const answer = await tokenEndpoint(
          {
            grant_type: 'authorization_code',
            code: exchange.code,
            redirect_uri: exchange.redirectUri,
            code_verifier: exchange.codeVerifier,
          },
          active,
          `${label} code exchange`,
        );
        secrets.push(answer.tokens.accessToken, answer.tokens.refreshToken ?? '');
        return spec.identify(answer, active);
      });
    },

    // The very request the publisher's renewal makes on a rejected token.
    refresh: oauthRefresh(label, refreshGrant(tokenEndpoint, label)),
  };
}
