// The OAuth flow Instagram (Business Login for Instagram) and Threads share: the consent page
// (`/oauth/authorize`, PKCE S256), the code exchange (POST /oauth/access_token, a form), the
// long-lived exchange (GET /access_token?grant_type=<network>_exchange_token: the 60-day token),
// the identity, and the refresh (GET /refresh_access_token?grant_type=<network>_refresh_token).
// There is never a refresh token: the 60-day token renews itself. Each network gives its hosts,
// grant types, scopes, the reading of its answers (their error shapes differ) and its identity.
import type {
  AuthorizationRequest,
  CodeExchange,
  ConnectOutcome,
  PlatformOAuth,
  RefreshInput,
  RefreshOutcome,
} from '@social-publisher/domain';
import type { PlatformSettingsSpec } from '../descriptor.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { HttpResult } from '../shared/http.ts';
import {
  authorizationUrl,
  expiresAt,
  missingClientSettings,
  oauthGet,
  oauthPostForm,
  runConnect,
  runRefresh,
} from '../shared/oauth.ts';
import { graphUrl } from './graph-api.ts';

/** A token answer as a network reads it (scopes: what it says was granted, [] when silent). */
export interface MetaToken {
  accessToken: string;
  expiresIn: number | null;
  scopes: string[];
}

/** The settings every Meta network declares (shared/oauth-settings.ts), as the registry fills them. */
export type MetaOAuthSettings = {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  authBaseUrl: string;
  tokenBaseUrl: string;
  apiBaseUrl: string;
};

export interface MetaOAuthSpec {
  platform: string;
  label: string;
  /** Which client settings are declared (missingClientSettings). */
  settingsSpec: PlatformSettingsSpec;
  /**
   * The host of GET /access_token and /refresh_access_token (unversioned paths): `api`
   * (graph.instagram.com) or `token` (graph.threads.net). The code is exchanged on the token host.
   */
  exchangeOn: 'api' | 'token';
  /** `ig_exchange_token` / `ig_refresh_token`, `th_exchange_token` / `th_refresh_token`. */
  grantTypes: { exchange: string; refresh: string };
  /** What the consent asks for, and what a token is said to carry when its answer names none. */
  scopes: readonly string[];
  /** The code exchange's answer, read (or its refusal thrown as an OAuthStepError). */
  codeAnswer(response: HttpResult, what: string): MetaToken;
  /** The long-lived exchange's and the refresh's answer, read likewise. */
  tokenAnswer(response: HttpResult, what: string): MetaToken;
  /** Who consented: the account's id (its externalId) and how it is shown. */
  identify(
    accessToken: string,
    signal: AbortSignal,
  ): Promise<{ externalId: string; displayName: string | null }>;
}

/** The PlatformOAuth of a Meta network that connects as Instagram and Threads do. */
export function metaOAuth(
  runtime: PublisherRuntime,
  settings: MetaOAuthSettings,
  spec: MetaOAuthSpec,
): PlatformOAuth {
  const { label } = spec;
  const clientId = settings.clientId ?? '';
  const clientSecret = settings.clientSecret ?? '';
  const exchangeBaseUrl = spec.exchangeOn === 'api' ? settings.apiBaseUrl : settings.tokenBaseUrl;
  const scopesOr = (granted: string[]) => (granted.length > 0 ? granted : [...spec.scopes]);

  /** POST /oauth/access_token (form): the short-lived token (an hour). */
  async function exchangeCode(exchange: CodeExchange, signal: AbortSignal) {
    const what = `${label} code exchange`;
    const form = {
      client_id: clientId,
      client_secret: clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: exchange.redirectUri,
      code: exchange.code,
      code_verifier: exchange.codeVerifier,
    };
    const url = `${settings.tokenBaseUrl}/oauth/access_token`;
    return spec.codeAnswer(await oauthPostForm(runtime, url, form, signal, what), what);
  }

  /** GET /access_token?grant_type=<exchange>: the 60-day token. */
  async function longLived(shortLived: string, signal: AbortSignal) {
    const what = `${label} long-lived exchange`;
    const url = graphUrl(exchangeBaseUrl, '/access_token', {
      grant_type: spec.grantTypes.exchange,
      client_secret: clientSecret,
      access_token: shortLived,
    });
    return spec.tokenAnswer(await oauthGet(runtime, url, signal, what), what);
  }

  return {
    platform: spec.platform,
    missingSettings: missingClientSettings(spec.settingsSpec, settings),

    authorizationUrl(request: AuthorizationRequest): string {
      return authorizationUrl(`${settings.authBaseUrl}/oauth/authorize`, {
        client_id: clientId,
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope: spec.scopes.join(','),
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome> {
      return runConnect(label, [exchange.code], signal, async (active, secrets) => {
        const short = await exchangeCode(exchange, active);
        secrets.push(short.accessToken);
        const long = await longLived(short.accessToken, active);
        secrets.push(long.accessToken);
        const identity = await spec.identify(long.accessToken, active);
        return [
          {
            ...identity,
            tokens: {
              accessToken: long.accessToken,
              refreshToken: null,
              expiresAt: expiresAt(long.expiresIn),
              scopes: scopesOr(short.scopes),
            },
          },
        ];
      });
    },

    /** GET /refresh_access_token?grant_type=<refresh>: a new 60-day token. */
    refresh(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome> {
      return runRefresh(label, [input.accessToken], signal, async (active, secrets) => {
        const what = `${label} token refresh`;
        const url = graphUrl(exchangeBaseUrl, '/refresh_access_token', {
          grant_type: spec.grantTypes.refresh,
          access_token: input.accessToken,
        });
        const fresh = spec.tokenAnswer(await oauthGet(runtime, url, active, what), what);
        secrets.push(fresh.accessToken);
        return {
          accessToken: fresh.accessToken,
          refreshToken: null,
          expiresAt: expiresAt(fresh.expiresIn),
          scopes: scopesOr(fresh.scopes),
        };
      });
    },
  };
}

/**
 * The digits of `"field": 123…` or `"field": "123…"` in a JSON text: Meta's ids are int64, which
 * a JSON number would round.
 */
export function rawId(text: string, field: string): string | undefined {
  const match = new RegExp(`"${field}"\\s*:\\s*"?(\\d+)`).exec(text);
  return match?.[1];
}
