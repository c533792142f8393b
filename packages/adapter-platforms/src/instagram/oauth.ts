// Instagram API with Instagram Login (Business Login for Instagram): consent page on
// www.instagram.com, code exchange on api.instagram.com, long-lived exchange, refresh and
// identity on graph.instagram.com (developers.facebook.com "Business Login for Instagram",
// "Access Token", "Refresh Access Token", "Me"). PKCE S256: the challenge goes with the consent,
// the verifier with the code exchange, so a code obtained in one flow cannot be redeemed in
// another. Unconfirmed: Meta documents PKCE for Facebook Login, not in the Instagram reference;
// if Instagram ignores it, the API's browser cookie still binds the flow.
import type {
  AuthorizationRequest,
  CodeExchange,
  ConnectOutcome,
  PlatformOAuth,
  RefreshInput,
  RefreshOutcome,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { graphStepError, graphUrl, versionedGraphBase } from '../shared/graph-api.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  expiresAt,
  missingClientSettings,
  type OAuthStepError,
  oauthGet,
  oauthPostForm,
  parseScopes,
  runConnect,
  runRefresh,
} from '../shared/oauth.ts';
import { identityError } from '../shared/oauth-identity.ts';
import { INSTAGRAM_SETTINGS, type InstagramSettings } from './settings.ts';

export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
] as const;

const LABEL = 'Instagram';

export function createInstagramOAuth(
  settings: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const tokenBase = settings.tokenBaseUrl;
  // The token endpoints of graph.instagram.com are not versioned; /me is.
  const apiBase = settings.apiBaseUrl;
  const versionedApi = versionedGraphBase(apiBase, settings.graphVersion);
  const clientId = settings.clientId ?? '';
  const clientSecret = settings.clientSecret ?? '';

  /** POST api.instagram.com/oauth/access_token: the short-lived token, user id, permissions. */
  async function exchangeCode(exchange: CodeExchange, signal: AbortSignal) {
    const response = await oauthPostForm(
      runtime,
      `${tokenBase}/oauth/access_token`,
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_type: 'authorization_code',
        redirect_uri: exchange.redirectUri,
        code: exchange.code,
        code_verifier: exchange.codeVerifier,
      },
      signal,
      `${LABEL} code exchange`,
    );
    const body = isRecord(response.json) ? response.json : undefined;
    // Current docs wrap the answer in `data: [...]`; older answers (and many apps' logs) are flat.
    const grant = body && Array.isArray(body.data) && isRecord(body.data[0]) ? body.data[0] : body;
    const accessToken = grant ? asString(grant.access_token) : undefined;
    if (response.status >= 200 && response.status < 300 && grant && accessToken) {
      return { accessToken, scopes: parseScopes(grant.permissions) };
    }
    throw instagramError(response.status, body, `${LABEL} code exchange`);
  }

  /** GET graph.instagram.com/access_token?grant_type=ig_exchange_token: the 60-day token. */
  async function longLived(shortLived: string, signal: AbortSignal) {
    const url = graphUrl(apiBase, '/access_token', {
      grant_type: 'ig_exchange_token',
      client_secret: clientSecret,
      access_token: shortLived,
    });
    return tokenAnswer(await oauthGet(runtime, url, signal, `${LABEL} long-lived exchange`));
  }

  function tokenAnswer(response: { status: number; json: unknown }) {
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
    throw instagramError(response.status, body, LABEL);
  }

  /** GET /{version}/me?fields=user_id,username: the professional account. */
  async function me(accessToken: string, signal: AbortSignal) {
    const url = graphUrl(versionedApi, '/me', {
      fields: 'user_id,username',
      access_token: accessToken,
    });
    const response = await oauthGet(runtime, url, signal, `${LABEL} identity`);
    const body = isRecord(response.json) ? response.json : undefined;
    // user_id is an int64: read its digits from the text (a JSON number would lose them).
    const userId = rawId(response.text, 'user_id') ?? (body ? asString(body.user_id) : undefined);
    if (response.status >= 200 && response.status < 300 && body && userId) {
      return { userId, username: asString(body.username) ?? null };
    }
    throw instagramError(response.status, body, `${LABEL} identity`);
  }

  return {
    platform: 'instagram',
    missingSettings: missingClientSettings(INSTAGRAM_SETTINGS, settings),

    authorizationUrl(request: AuthorizationRequest): string {
      return authorizationUrl(`${settings.authBaseUrl}/oauth/authorize`, {
        client_id: clientId,
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope: INSTAGRAM_SCOPES.join(','),
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome> {
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const short = await exchangeCode(exchange, active);
        secrets.push(short.accessToken);
        const long = await longLived(short.accessToken, active);
        secrets.push(long.accessToken);
        const identity = await me(long.accessToken, active);
        return [
          {
            externalId: identity.userId,
            displayName: identity.username ? `@${identity.username}` : null,
            tokens: {
              accessToken: long.accessToken,
              refreshToken: null,
              expiresAt: expiresAt(long.expiresIn),
              scopes: short.scopes.length > 0 ? short.scopes : [...INSTAGRAM_SCOPES],
            },
          },
        ];
      });
    },

    /** GET /refresh_access_token?grant_type=ig_refresh_token: a new 60-day token. */
    refresh(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome> {
      return runRefresh(LABEL, [input.accessToken], signal, async (active, secrets) => {
        const url = graphUrl(apiBase, '/refresh_access_token', {
          grant_type: 'ig_refresh_token',
          access_token: input.accessToken,
        });
        const fresh = tokenAnswer(await oauthGet(runtime, url, active, `${LABEL} token refresh`));
        secrets.push(fresh.accessToken);
        return {
          accessToken: fresh.accessToken,
          refreshToken: null,
          expiresAt: expiresAt(fresh.expiresIn),
          scopes: fresh.scopes.length > 0 ? fresh.scopes : [...INSTAGRAM_SCOPES],
        };
      });
    },
  };
}

/** The digits of `"field": 123…` or `"field": "123…"` in a JSON text. */
function rawId(text: string, field: string): string | undefined {
  const match = new RegExp(`"${field}"\\s*:\\s*"?(\\d+)`).exec(text);
  return match?.[1];
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
