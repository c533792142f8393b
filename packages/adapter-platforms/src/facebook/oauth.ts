// Facebook Login for Pages: the dialog on www.facebook.com, the code and long-lived exchanges on
// graph.facebook.com/{version}/oauth/access_token, the Pages (with their Page tokens) from
// /me/accounts (developers.facebook.com "Manually Build a Login Flow", "Long-Lived Access
// Tokens", "Page Access Tokens"). PKCE S256 ("OIDC Code Flow with PKCE for Manually Built
// Facebook Login Flows"): the challenge goes with the dialog, the verifier with the code
// exchange, so a code obtained in one flow cannot be redeemed in another. Page tokens obtained
// from a long-lived user token do not expire: there is no refresh.
import type {
  AuthorizationRequest,
  CodeExchange,
  ConnectedIdentity,
  ConnectOutcome,
  PlatformOAuth,
} from '@social-publisher/domain';
import { graphOAuthGet, graphUrl, versionedGraphBase } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  missingClientSettings,
  OAuthStepError,
  runConnect,
} from '../shared/oauth.ts';
import { FACEBOOK_SETTINGS, type FacebookSettings } from './settings.ts';

/** Meta's Pages API: moderating comments (the Page's own first comment) and deleting posts. */
export const FACEBOOK_ENGAGEMENT_MANAGE_SCOPE = 'pages_manage_engagement';

/**
 * Listing the Pages and publishing need the first two, reading the posts' numbers
 * pages_read_engagement, commenting as the Page and deleting (unpublish) pages_manage_engagement.
 */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  FACEBOOK_ENGAGEMENT_MANAGE_SCOPE,
] as const;

const LABEL = 'Facebook';
/** /me/accounts pages followed at most (Graph's default page size is 25). */
const MAX_ACCOUNT_PAGES = 20;

export function createFacebookOAuth(
  settings: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  // The dialog, the token exchanges and the API all sit under the Graph version.
  const tokenBase = versionedGraphBase(settings.tokenBaseUrl, settings.graphVersion);
  const apiBase = versionedGraphBase(settings.apiBaseUrl, settings.graphVersion);
  const dialogBase = versionedGraphBase(settings.authBaseUrl, settings.graphVersion);
  const clientId = settings.clientId ?? '';
  const clientSecret = settings.clientSecret ?? '';
  const graphGet = (url: URL, signal: AbortSignal, what: string) =>
    graphOAuthGet(runtime, url, signal, what);

  async function tokenGet(params: Record<string, string>, signal: AbortSignal, what: string) {
    const url = graphUrl(tokenBase, '/oauth/access_token', params);
    const body = await graphGet(url, signal, what);
    const accessToken = asString(body.access_token);
    if (!accessToken) {
      throw new OAuthStepError('invalid_response', `${what}: no access_token`, 'failed');
    }
    return accessToken;
  }

  /** GET /me/accounts?fields=id,name,access_token (every page of results). */
  async function pages(userToken: string, signal: AbortSignal) {
    const found: { id: string; name: string | null; accessToken: string }[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_ACCOUNT_PAGES; page += 1) {
      const url = graphUrl(apiBase, '/me/accounts', {
        fields: 'id,name,access_token',
        access_token: userToken,
        ...(after ? { after } : {}),
      });
      const body = await graphGet(url, signal, `${LABEL} Pages (/me/accounts)`);
      const data = Array.isArray(body.data) ? body.data : [];
      for (const item of data) {
        if (!isRecord(item)) continue;
        const id = asString(item.id);
        const accessToken = asString(item.access_token);
        if (id && accessToken) found.push({ id, name: asString(item.name) ?? null, accessToken });
      }
      // The cursor is replayed on our own base URL (paging.next names Facebook's host).
      const paging = isRecord(body.paging) ? body.paging : {};
      const cursors = isRecord(paging.cursors) ? paging.cursors : {};
      after = asString(cursors.after);
      if (!paging.next || !after || data.length === 0) break;
    }
    return found;
  }

  /** GET /me/permissions: the permissions the user granted (some may have been declined). */
  async function grantedScopes(userToken: string, signal: AbortSignal) {
    const url = graphUrl(apiBase, '/me/permissions', { access_token: userToken });
    const body = await graphGet(url, signal, `${LABEL} permissions`);
    const data = Array.isArray(body.data) ? body.data : [];
    return data
      .filter((item) => isRecord(item) && item.status === 'granted')
      .map((item) => asString((item as Record<string, unknown>).permission) ?? '')
      .filter((permission) => permission !== '');
  }

  return {
    platform: 'facebook',
    missingSettings: missingClientSettings(FACEBOOK_SETTINGS, settings),

    authorizationUrl(request: AuthorizationRequest): string {
      return authorizationUrl(`${dialogBase}/dialog/oauth`, {
        client_id: clientId,
        redirect_uri: request.redirectUri,
        state: request.state,
        scope: FACEBOOK_SCOPES.join(','),
        response_type: 'code',
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome> {
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const shortLived = await tokenGet(
          {
            client_id: clientId,
            redirect_uri: exchange.redirectUri,
            client_secret: clientSecret,
            code: exchange.code,
            code_verifier: exchange.codeVerifier,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(shortLived);
        const userToken = await tokenGet(
          {
            grant_type: 'fb_exchange_token',
            client_id: clientId,
            client_secret: clientSecret,
            fb_exchange_token: shortLived,
          },
          active,
          `${LABEL} long-lived exchange`,
        );
        secrets.push(userToken);
        const scopes = await grantedScopes(userToken, active);
        const granted = await pages(userToken, active);
        for (const page of granted) secrets.push(page.accessToken);
        if (granted.length === 0) {
          throw new OAuthStepError(
            'no_pages',
            'no Facebook Page was granted: connect again and select at least one Page you manage',
            'error',
          );
        }
        return granted.map(
          (page): ConnectedIdentity => ({
            externalId: page.id,
            displayName: page.name,
            tokens: {
              accessToken: page.accessToken,
              refreshToken: null,
              // Page tokens from a long-lived user token do not expire.
              expiresAt: null,
              scopes,
            },
          }),
        );
      });
    },
  };
}
