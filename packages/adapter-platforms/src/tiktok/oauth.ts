// TikTok Login Kit for Web (developers.tiktok.com "Login Kit", "Manage User Access Tokens",
// "Get User Info"): consent on www.tiktok.com, code exchange and refresh on
// open.tiktokapis.com, identity from /v2/user/info/.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { missingClientSettings } from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { tiktokTokenEndpoint } from './api.ts';
import { TIKTOK_SETTINGS, type TiktokSettings } from './settings.ts';

/** Publishing's, and video.list: reading the numbers of the user's videos (metrics.ts). */
export const TIKTOK_SCOPES = [
  'user.info.basic',
  'video.publish',
  'video.upload',
  'video.list',
] as const;

const LABEL = 'TikTok';

export function createTiktokOAuth(
  settings: TiktokSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** GET /v2/user/info/: who consented (open_id, display name). */
  async function userInfo(accessToken: string, signal: AbortSignal) {
    const url = new URL(`${settings.apiBaseUrl}/v2/user/info/`);
    url.searchParams.set('fields', 'open_id,union_id,avatar_url,display_name');
    const what = `${LABEL} user info`;
    const { ok, status, body } = await identityGet(runtime, url, accessToken, signal, what);
    const error = isRecord(body.error) ? body.error : {};
    const code = asString(error.code);
    const user = isRecord(body.data) && isRecord(body.data.user) ? body.data.user : undefined;
    const openId = user ? asString(user.open_id) : undefined;
    if (ok && code === 'ok' && user && openId) {
      return { openId, displayName: asString(user.display_name) ?? null };
    }
    throw identityError(what, status, { code, message: asString(error.message) });
  }

  return createOAuthConnector({
    platform: 'tiktok',
    label: LABEL,
    missingSettings: missingClientSettings(TIKTOK_SETTINGS, settings),
    tokenEndpoint: tiktokTokenEndpoint(settings, runtime),
    consent: {
      url: `${settings.authBaseUrl}/v2/auth/authorize/`,
      params: { client_key: settings.clientId ?? '', scope: TIKTOK_SCOPES.join(',') },
    },
    async identify({ tokens, body }, signal) {
      const user = await userInfo(tokens.accessToken, signal);
      // The token answer names the open_id too; it wins when given.
      const openId = asString(body.open_id) ?? user.openId;
      return [{ externalId: openId, displayName: user.displayName, tokens }];
    },
  });
}
