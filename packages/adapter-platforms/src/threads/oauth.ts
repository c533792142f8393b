// Threads API OAuth (developers.facebook.com "Threads API: Get Access Tokens and Permissions",
// "Long-Lived Access Tokens"): the consent page on threads.net, the code exchange
// (POST /oauth/access_token), the long-lived exchange (th_exchange_token) and the refresh
// (th_refresh_token) on graph.threads.net's unversioned token paths, identity on /v1.0/me.
// Every refusal is a Graph error object. PKCE S256 goes along as with Instagram: unconfirmed in
// Meta's Threads reference; if Threads ignores it, the API's browser cookie still binds the flow.
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
  OAuthStepError,
  oauthGet,
  oauthPostForm,
  runConnect,
  runRefresh,
} from '../shared/oauth.ts';
import { THREADS_API_VERSION } from './api.ts';
import { THREADS_SETTINGS, type ThreadsSettings } from './settings.ts';

/**
 * Publishing needs the first two; replies (a `thread`, a first comment) need
 * threads_manage_replies, and looking up a reply whose answer was lost threads_read_replies.
 */
export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
] as const;

const LABEL = 'Threads';

export function createThreadsOAuth(
  settings: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const tokenBase = settings.tokenBaseUrl;
  const versionedApi = versionedGraphBase(settings.apiBaseUrl, THREADS_API_VERSION);
  const clientId = settings.clientId ?? '';
  const clientSecret = settings.clientSecret ?? '';

  /** A 2xx answer as a JSON object, else the Graph refusal as the step error. */
  function answerOf(response: { status: number; json: unknown }, what: string) {
    const body = isRecord(response.json) ? response.json : undefined;
    if (response.status >= 200 && response.status < 300 && body && !isRecord(body.error)) {
      return body;
    }
    throw graphStepError(response.status, body, what);
  }

  /** An answer `{ access_token, token_type?, expires_in? }`. */
  function tokenOf(response: { status: number; json: unknown }, what: string) {
    const body = answerOf(response, what);
    const accessToken = asString(body.access_token);
    if (!accessToken) {
      throw new OAuthStepError('invalid_response', `${what}: no access_token`, 'failed');
    }
    const expiresIn = Number(body.expires_in);
    return { accessToken, expiresIn: Number.isFinite(expiresIn) ? expiresIn : null };
  }

  /** POST /oauth/access_token (form): the short-lived token (an hour) and the user id. */
  async function exchangeCode(exchange: CodeExchange, signal: AbortSignal) {
    const what = `${LABEL} code exchange`;
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
      what,
    );
    return tokenOf(response, what).accessToken;
  }

  /** GET /access_token?grant_type=th_exchange_token: the 60-day token. */
  async function longLived(shortLived: string, signal: AbortSignal) {
    const what = `${LABEL} long-lived exchange`;
    const url = graphUrl(tokenBase, '/access_token', {
      grant_type: 'th_exchange_token',
      client_secret: clientSecret,
      access_token: shortLived,
    });
    return tokenOf(await oauthGet(runtime, url, signal, what), what);
  }

  /** GET /v1.0/me?fields=id,username,name: the Threads profile. */
  async function me(accessToken: string, signal: AbortSignal) {
    const what = `${LABEL} identity`;
    const url = graphUrl(versionedApi, '/me', {
      fields: 'id,username,name',
      access_token: accessToken,
    });
    const response = await oauthGet(runtime, url, signal, what);
    const body = answerOf(response, what);
    // The id is an int64: read its digits from the text (a JSON number would lose them).
    const id = rawId(response.text, 'id') ?? asString(body.id);
    if (!id) throw new OAuthStepError('invalid_response', `${what}: no id`, 'failed');
    return { id, username: asString(body.username) ?? null, name: asString(body.name) ?? null };
  }

  return {
    platform: 'threads',
    missingSettings: missingClientSettings(THREADS_SETTINGS, settings),

    authorizationUrl(request: AuthorizationRequest): string {
      return authorizationUrl(`${settings.authBaseUrl}/oauth/authorize`, {
        client_id: clientId,
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope: THREADS_SCOPES.join(','),
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome> {
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const shortLived = await exchangeCode(exchange, active);
        secrets.push(shortLived);
        const long = await longLived(shortLived, active);
        secrets.push(long.accessToken);
        const profile = await me(long.accessToken, active);
        return [
          {
            externalId: profile.id,
            displayName: profile.username ? `@${profile.username}` : profile.name,
            tokens: {
              accessToken: long.accessToken,
              refreshToken: null,
              expiresAt: expiresAt(long.expiresIn),
              // The exchange does not say what was granted: what the consent asked for.
              scopes: [...THREADS_SCOPES],
            },
          },
        ];
      });
    },

    /** GET /refresh_access_token?grant_type=th_refresh_token: a new 60-day token. */
    refresh(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome> {
      return runRefresh(LABEL, [input.accessToken], signal, async (active, secrets) => {
        const what = `${LABEL} token refresh`;
        const url = graphUrl(tokenBase, '/refresh_access_token', {
          grant_type: 'th_refresh_token',
          access_token: input.accessToken,
        });
        const fresh = tokenOf(await oauthGet(runtime, url, active, what), what);
        secrets.push(fresh.accessToken);
        return {
          accessToken: fresh.accessToken,
          refreshToken: null,
          expiresAt: expiresAt(fresh.expiresIn),
          scopes: [...THREADS_SCOPES],
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
