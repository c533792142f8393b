// TikTok Login Kit for Web (developers.tiktok.com "Login Kit", "Manage User Access Tokens",
// "Get User Info"): consent on www.tiktok.com, code exchange and refresh on
// open.tiktokapis.com, identity from /v2/user/info/.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  missingClientSettings,
  notConfigured,
  OAuthStepError,
  oauthGet,
  oauthRefresh,
  runConnect,
} from '../shared/oauth.ts';
import { tiktokRenewal, tiktokTokenEndpoint } from './api.ts';
import { TIKTOK_SETTINGS, type TiktokSettings } from './settings.ts';

export const TIKTOK_SCOPES = ['user.info.basic', 'video.publish', 'video.upload'] as const;

const LABEL = 'TikTok';

export function createTiktokOAuth(
  settings: TiktokSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const missing = missingClientSettings(TIKTOK_SETTINGS, settings);
  const tokenEndpoint = tiktokTokenEndpoint(settings, runtime);

  /** GET /v2/user/info/: who consented (open_id, display name). */
  async function userInfo(accessToken: string, signal: AbortSignal) {
    const url = new URL(`${settings.apiBaseUrl}/v2/user/info/`);
    url.searchParams.set('fields', 'open_id,union_id,avatar_url,display_name');
    const response = await oauthGet(runtime, url, signal, `${LABEL} user info`, {
      authorization: `Bearer ${accessToken}`,
    });
    const body = isRecord(response.json) ? response.json : {};
    const error = isRecord(body.error) ? body.error : {};
    const code = asString(error.code) ?? `http_${response.status}`;
    const user = isRecord(body.data) && isRecord(body.data.user) ? body.data.user : undefined;
    const openId = user ? asString(user.open_id) : undefined;
    if (response.status >= 200 && response.status < 300 && code === 'ok' && user && openId) {
      return { openId, displayName: asString(user.display_name) ?? null };
    }
    throw new OAuthStepError(
      code,
      `${LABEL} user info: ${asString(error.message) || code}`,
      response.status >= 500 || response.status === 429 ? 'failed' : 'error',
    );
  }

  return {
    platform: 'tiktok',
    missingSettings: missing,

    authorizationUrl(request) {
      return authorizationUrl(`${settings.authBaseUrl}/v2/auth/authorize/`, {
        client_key: settings.clientId ?? '',
        scope: TIKTOK_SCOPES.join(','),
        response_type: 'code',
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange, signal) {
      if (!tokenEndpoint) return Promise.resolve(notConfigured(LABEL, missing));
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const { tokens, body } = await tokenEndpoint(
          {
            code: exchange.code,
            grant_type: 'authorization_code',
            redirect_uri: exchange.redirectUri,
            code_verifier: exchange.codeVerifier,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(tokens.accessToken, tokens.refreshToken ?? '');
        const user = await userInfo(tokens.accessToken, active);
        const openId = asString(body.open_id) ?? user.openId;
        return [{ externalId: openId, displayName: user.displayName, tokens }];
      });
    },

    refresh: oauthRefresh(LABEL, tiktokRenewal(settings, runtime)),
  };
}
