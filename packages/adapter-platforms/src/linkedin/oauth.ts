// LinkedIn OAuth 2.0 (3-legged, "Sign In with LinkedIn using OpenID Connect" + Community
// Management): consent and token endpoints on www.linkedin.com/oauth/v2, the member from
// /v2/userinfo, the organizations the member administers from /rest/organizationAcls and
// /rest/organizations/{id} (learn.microsoft.com/linkedin "Authorization Code Flow",
// "Programmatic Refresh Tokens", "Organization Access Control by Role"). No PKCE: LinkedIn offers
// it only to native apps it enables one by one, with loopback redirects; a web app's flow is
// bound to its browser by our own cookie instead.
import type {
  AuthorizationRequest,
  CodeExchange,
  ConnectedIdentity,
  ConnectOutcome,
  GrantedTokens,
  PlatformOAuth,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  missingClientSettings,
  notConfigured,
  OAuthStepError,
  oauthRefresh,
  runConnect,
} from '../shared/oauth.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { linkedinRenewal, linkedinTokenEndpoint } from './api.ts';
import { LINKEDIN_SETTINGS, type LinkedinSettings } from './settings.ts';

export const LINKEDIN_MEMBER_SCOPES: readonly string[] = ['openid', 'profile', 'w_member_social'];
/** Community Management API: post as, and list, the organizations the member administers. */
export const LINKEDIN_ORGANIZATION_SCOPES: readonly string[] = [
  'w_organization_social',
  'rw_organization_admin',
];
/**
 * Community Management API: read the organizations' posts' likes and comments (their numbers;
 * rw_organization_admin above reads their share statistics). Asked for with the organization
 * scopes, not needed to list or post as the organizations.
 */
export const LINKEDIN_ORGANIZATION_READ_SCOPE = 'r_organization_social';

const LABEL = 'LinkedIn';
/** organizationAcls results per page, and pages followed at most. */
const ACL_PAGE_SIZE = 100;
const MAX_ACL_PAGES = 10;

export function createLinkedinOAuth(
  settings: LinkedinSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const missing = missingClientSettings(LINKEDIN_SETTINGS, settings);
  const tokenEndpoint = linkedinTokenEndpoint(settings, runtime);
  const renewal = linkedinRenewal(settings, runtime);
  // An app without the Community Management API is refused any consent asking for its scopes
  // (unauthorized_scope_error): LINKEDIN_ORGANIZATIONS=false asks for the member scopes only.
  const scopes =
    settings.organizations === 'false'
      ? [...LINKEDIN_MEMBER_SCOPES]
      : [
          ...LINKEDIN_MEMBER_SCOPES,
          ...LINKEDIN_ORGANIZATION_SCOPES,
          LINKEDIN_ORGANIZATION_READ_SCOPE,
        ];

  /** GET on api.linkedin.com with the member's token (versioned headers for /rest). */
  async function apiGet(path: string, accessToken: string, signal: AbortSignal, what: string) {
    const versioned: Record<string, string> = path.startsWith('/rest/')
      ? { 'linkedin-version': settings.apiVersion, 'x-restli-protocol-version': '2.0.0' }
      : {};
    const url = `${settings.apiBaseUrl}${path}`;
    const answer = await identityGet(runtime, url, accessToken, signal, what, versioned);
    if (answer.ok && answer.isObject) return answer.body;
    // API errors `{ status, serviceErrorCode, code, message }`; 401 is a rejected token.
    throw identityError(what, answer.status, {
      code: asString(answer.body.code),
      message: asString(answer.body.message),
      refused: answer.status === 401,
    });
  }

  /** The organizations the member administers (approved ADMINISTRATOR role). */
  async function organizations(accessToken: string, signal: AbortSignal) {
    const ids: string[] = [];
    for (let page = 0; page < MAX_ACL_PAGES; page += 1) {
      const query = new URLSearchParams({
        q: 'roleAssignee',
        role: 'ADMINISTRATOR',
        state: 'APPROVED',
        start: String(page * ACL_PAGE_SIZE),
        count: String(ACL_PAGE_SIZE),
      });
      const body = await apiGet(
        `/rest/organizationAcls?${query.toString()}`,
        accessToken,
        signal,
        `${LABEL} organizations (organizationAcls)`,
      );
      const elements = Array.isArray(body.elements) ? body.elements : [];
      for (const element of elements) {
        if (!isRecord(element)) continue;
        const urn = asString(element.organization) ?? asString(element.organizationTarget);
        const id = urn ? /^urn:li:organization:(\d+)$/.exec(urn)?.[1] : undefined;
        if (id && !ids.includes(id)) ids.push(id);
      }
      const paging = isRecord(body.paging) ? body.paging : {};
      const total = Number(paging.total);
      const seen = (page + 1) * ACL_PAGE_SIZE;
      if (elements.length < ACL_PAGE_SIZE || (Number.isFinite(total) && seen >= total)) break;
    }
    const found: { id: string; name: string | null }[] = [];
    for (const id of ids) {
      const body = await apiGet(
        `/rest/organizations/${id}`,
        accessToken,
        signal,
        `${LABEL} organization ${id}`,
      );
      found.push({ id, name: asString(body.localizedName) ?? asString(body.vanityName) ?? null });
    }
    return found;
  }

  return {
    platform: 'linkedin',
    missingSettings: missing,

    authorizationUrl(request: AuthorizationRequest): string {
      // No PKCE for LinkedIn web apps (see above): the challenge is not sent. Scopes are
      // space-separated.
      const url = authorizationUrl(`${settings.authBaseUrl}/oauth/v2/authorization`, {
        response_type: 'code',
        client_id: settings.clientId ?? '',
        redirect_uri: request.redirectUri,
        state: request.state,
        scope: scopes.join(' '),
      });
      // Spaces as %20, as LinkedIn's documentation writes them (a literal + is already %2B).
      return url.replace(/\+/g, '%20');
    },

    connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome> {
      if (!tokenEndpoint) return Promise.resolve(notConfigured(LABEL, missing));
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const { tokens: granted } = await tokenEndpoint(
          {
            grant_type: 'authorization_code',
            code: exchange.code,
            redirect_uri: exchange.redirectUri,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(granted.accessToken, granted.refreshToken ?? '');
        // LinkedIn may omit `scope`: then it granted what was asked. A refresh token is only
        // for approved apps (none, or an empty one, is null).
        const tokens: GrantedTokens = {
          ...granted,
          refreshToken: granted.refreshToken || null,
          scopes: granted.scopes.length > 0 ? granted.scopes : scopes,
        };
        const member = await apiGet(
          '/v2/userinfo',
          tokens.accessToken,
          active,
          `${LABEL} member (userinfo)`,
        );
        const sub = asString(member.sub);
        if (!sub) {
          throw new OAuthStepError('invalid_response', `${LABEL} userinfo gave no sub`, 'failed');
        }
        const identities: ConnectedIdentity[] = [
          { externalId: `urn:li:person:${sub}`, displayName: memberName(member), tokens },
        ];
        const canManagePages = LINKEDIN_ORGANIZATION_SCOPES.every((scope) =>
          tokens.scopes.includes(scope),
        );
        if (canManagePages) {
          for (const organization of await organizations(tokens.accessToken, active)) {
            identities.push({
              externalId: `urn:li:organization:${organization.id}`,
              displayName: organization.name,
              tokens,
            });
          }
        }
        return identities;
      });
    },

    refresh: oauthRefresh(
      LABEL,
      renewal &&
        (async (refreshToken, signal) => {
          const fresh = await renewal(refreshToken, signal);
          return {
            ...fresh,
            // The refresh token stays valid until its own expiry when none is returned.
            refreshToken: fresh.refreshToken ?? refreshToken,
            scopes: fresh.scopes.length > 0 ? fresh.scopes : scopes,
          };
        }),
    ),
  };
}

function memberName(member: Record<string, unknown>): string | null {
  const name = asString(member.name);
  if (name) return name;
  const parts = [asString(member.given_name), asString(member.family_name)].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : null;
}
