// Google OAuth 2.0 for web server apps (developers.google.com/identity/protocols/oauth2/
// web-server) with PKCE and the business.manage scope. One consent makes one connection per
// Business Profile location the user manages: the accounts from the Account Management API
// (GET /v1/accounts), each account's locations from the Business Information API
// (GET /v1/{account}/locations?readMask=name,title), every location sharing the user's tokens,
// as LinkedIn's organizations and Facebook's Pages do. The location's resource name is the
// connection's external id; its account, which posting needs, is kept in platformData.
import type { ConnectedIdentity, GrantedTokens, PlatformOAuth } from '@social-publisher/domain';
import { googleConsent, googleTokenEndpoint, requireGrantedScope } from '../google/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { missingClientSettings, OAuthStepError } from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { googleErrorOf, LABEL } from './api.ts';
import { GOOGLE_BUSINESS_SETTINGS, type GoogleBusinessSettings } from './settings.ts';

export const GOOGLE_BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';
/** Page sizes (Google's maxima: 20 accounts, 100 locations) and pages followed at most. */
const ACCOUNTS_PAGE_SIZE = 20;
const LOCATIONS_PAGE_SIZE = 100;
const MAX_PAGES = 10;

export function createGoogleBusinessOAuth(
  settings: GoogleBusinessSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** Every page of one listing, `key` its items, at most MAX_PAGES. */
  async function listAll(
    url: URL,
    key: string,
    accessToken: string,
    signal: AbortSignal,
    what: string,
  ) {
    const items: Record<string, unknown>[] = [];
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await identityGet(runtime, url, accessToken, signal, what);
      if (!answer.ok) {
        const error = googleErrorOf(answer.body);
        throw identityError(what, answer.status, {
          code: error.status,
          message: error.message,
          refused: answer.status === 401,
        });
      }
      const found = answer.body[key];
      items.push(...(Array.isArray(found) ? found.filter(isRecord) : []));
      const next = asString(answer.body.nextPageToken);
      if (!next) break;
      url.searchParams.set('pageToken', next);
    }
    return items;
  }

  /** One identity per location of every account the user reaches. */
  async function locations(tokens: GrantedTokens, signal: AbortSignal) {
    const accountsUrl = new URL(`${settings.accountsBaseUrl}/v1/accounts`);
    accountsUrl.searchParams.set('pageSize', String(ACCOUNTS_PAGE_SIZE));
    const accounts = await listAll(
      accountsUrl,
      'accounts',
      tokens.accessToken,
      signal,
      `${LABEL} accounts`,
    );
    const identities: ConnectedIdentity[] = [];
    for (const account of accounts) {
      const accountName = asString(account.name);
      if (!accountName?.startsWith('accounts/')) continue;
      const url = new URL(`${settings.locationsBaseUrl}/v1/${accountName}/locations`);
      url.searchParams.set('readMask', 'name,title');
      url.searchParams.set('pageSize', String(LOCATIONS_PAGE_SIZE));
      const what = `${LABEL} locations of ${accountName}`;
      for (const location of await listAll(url, 'locations', tokens.accessToken, signal, what)) {
        const name = asString(location.name);
        if (!name?.startsWith('locations/')) continue;
        identities.push({
          externalId: name,
          displayName: asString(location.title) ?? null,
          tokens,
          platformData: { account: accountName },
        });
      }
    }
    return identities;
  }

  return createOAuthConnector({
    platform: 'google_business',
    label: LABEL,
    missingSettings: missingClientSettings(GOOGLE_BUSINESS_SETTINGS, settings),
    tokenEndpoint: googleTokenEndpoint(settings, runtime),
    consent: googleConsent(settings, GOOGLE_BUSINESS_SCOPE),
    async identify({ tokens }, signal) {
      // Without it nothing would work.
      requireGrantedScope(tokens, GOOGLE_BUSINESS_SCOPE, LABEL, 'manage the business');
      const found = await locations(tokens, signal);
      if (found.length === 0) {
        throw new OAuthStepError(
          'no_locations',
          `${LABEL}: this Google account manages no Business Profile location; add or claim one, then connect again`,
          'error',
        );
      }
      return found;
    },
  });
}
