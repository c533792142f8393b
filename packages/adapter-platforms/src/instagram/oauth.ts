// Instagram API with Instagram Login (Business Login for Instagram): consent page on
// www.instagram.com, code exchange on api.instagram.com, long-lived exchange, refresh and
// identity on graph.instagram.com (developers.facebook.com "Business Login for Instagram",
// "Access Token", "Refresh Access Token", "Me"). PKCE S256: the challenge goes with the consent,
// the verifier with the code exchange, so a code obtained in one flow cannot be redeemed in
// another. Unconfirmed: Meta documents PKCE for Facebook Login, not in the Instagram reference;
// if Instagram ignores it, the API's browser cookie still binds the flow.
import type { PlatformOAuth } from '@social-publisher/domain';
import { graphStepError, graphUrl, versionedGraphBase } from '../meta/graph-api.ts';
import { type MetaToken, metaOAuth, rawId } from '../meta/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, type HttpResult, isRecord } from '../shared/http.ts';
import { type OAuthStepError, oauthGet, parseScopes } from '../shared/oauth.ts';
import { identityError } from '../shared/oauth-identity.ts';
import { INSTAGRAM_SETTINGS, type InstagramSettings } from './settings.ts';

/** Business Login for Instagram's permission to read a media's insights (its numbers). */
export const INSTAGRAM_INSIGHTS_SCOPE = 'instagram_business_manage_insights';

/** Business Login for Instagram's permission to read, answer, hide and delete comments. */
export const INSTAGRAM_COMMENTS_SCOPE = 'instagram_business_manage_comments';

export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  INSTAGRAM_INSIGHTS_SCOPE,
  INSTAGRAM_COMMENTS_SCOPE,
] as const;

const LABEL = 'Instagram';

export function createInstagramOAuth(
  settings: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  // The token endpoints of graph.instagram.com are not versioned; /me is.
  const versionedApi = versionedGraphBase(settings.apiBaseUrl, settings.graphVersion);

  /** GET /{version}/me?fields=user_id,username: the professional account. */
  async function identify(accessToken: string, signal: AbortSignal) {
    const url = graphUrl(versionedApi, '/me', {
      fields: 'user_id,username',
      access_token: accessToken,
    });
    const response = await oauthGet(runtime, url, signal, `${LABEL} identity`);
    const body = isRecord(response.json) ? response.json : undefined;
    // user_id is an int64: read its digits from the text (a JSON number would lose them).
    const userId = rawId(response.text, 'user_id') ?? (body ? asString(body.user_id) : undefined);
    if (response.status >= 200 && response.status < 300 && body && userId) {
      const username = asString(body.username);
      return { externalId: userId, displayName: username ? `@${username}` : null };
    }
    throw instagramError(response.status, body, `${LABEL} identity`);
  }

  // Code exchange on api.instagram.com; long-lived exchange and refresh on graph.instagram.com.
  return metaOAuth(runtime, settings, {
    platform: 'instagram',
    label: LABEL,
    settingsSpec: INSTAGRAM_SETTINGS,
    exchangeOn: 'api',
    grantTypes: { exchange: 'ig_exchange_token', refresh: 'ig_refresh_token' },
    scopes: INSTAGRAM_SCOPES,
    codeAnswer,
    // Its refusals are named "Instagram" alone, as they always were.
    tokenAnswer: (response) => tokenAnswer(response, LABEL),
    identify,
  });
}

/** The code exchange: the short-lived token, user id, permissions. */
function codeAnswer(response: HttpResult, what: string): MetaToken {
  const body = isRecord(response.json) ? response.json : undefined;
  // Current docs wrap the answer in `data: [...]`; older answers (and many apps' logs) are flat.
  const grant = body && Array.isArray(body.data) && isRecord(body.data[0]) ? body.data[0] : body;
  const accessToken = grant ? asString(grant.access_token) : undefined;
  if (response.status >= 200 && response.status < 300 && grant && accessToken) {
    return { accessToken, expiresIn: null, scopes: parseScopes(grant.permissions) };
  }
  throw instagramError(response.status, body, what);
}

/** `{ access_token, token_type, expires_in, permissions? }`: the 60-day token. */
function tokenAnswer(response: HttpResult, what: string): MetaToken {
  const body = isRecord(response.json) ? response.json : undefined;
  const accessToken = body ? asString(body.access_token) : undefined;
  if (response.status >= 200 && response.status < 300 && body && accessToken) {
    const expiresIn = Number(body.expires_in);
    return {
      accessToken,
      expiresIn: Number.isFinite(expiresIn) ? expiresIn : null,
      scopes: parseScopes(body.permissions),
    };
  }
  throw instagramError(response.status, body, what);
}

/**
 * Instagram's two error shapes: api.instagram.com's `{ error_type, code, error_message }` and
 * Graph's `{ error: {...} }` (read as every Graph refusal is: 190 refused, 5xx/429 transient).
 */
function instagramError(
  status: number,
  body: Record<string, unknown> | undefined,
  what: string,
): OAuthStepError {
  const errorType = body ? asString(body.error_type) : undefined;
  const errorMessage = body ? asString(body.error_message) : undefined;
  if (body && !isRecord(body.error) && (errorType || errorMessage)) {
    return identityError(what, status, { code: errorType, message: errorMessage });
  }
  return graphStepError(status, body, what);
}
