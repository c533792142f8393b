/**
 * A platform-independent fake OAuth 2.0 provider: the state machine each platform's fake
 * mounts behind its own wire format (paths, field names, error shapes). It consents at once
 * (a browser following the consent URL is redirected back with a code), checks what a real
 * provider checks (client id and secret, redirect_uri, single-use codes, PKCE S256) and can
 * be scripted to deny consent, refuse an exchange, or revoke refresh tokens.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

export interface FakeOAuthOptions {
  clientId: string;
  clientSecret: string;
  /** `required`: a code challenge must come with the consent and its verifier with the exchange. */
  pkce: 'required' | 'optional' | 'none';
  accessTokenTtlSeconds?: number;
  /** Whether tokens come with a refresh token (default true). */
  issueRefreshTokens?: boolean;
  /** Whether a refresh answers a new refresh token, the old one then refused (default false). */
  rotateRefreshTokens?: boolean;
}

/** The consent query, whatever each platform calls its client id. */
export interface ConsentQuery {
  clientId: string | undefined;
  redirectUri: string | undefined;
  state: string | undefined;
  scope: string;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
}

/** The consent page's query as platforms send it (TikTok names the client id `client_key`). */
export function consentQueryOf(query: URLSearchParams, clientIdParam = 'client_id'): ConsentQuery {
  return {
    clientId: query.get(clientIdParam) ?? undefined,
    redirectUri: query.get('redirect_uri') ?? undefined,
    state: query.get('state') ?? undefined,
    scope: query.get('scope') ?? '',
    codeChallenge: query.get('code_challenge') ?? undefined,
    codeChallengeMethod: query.get('code_challenge_method') ?? undefined,
  };
}

/**
 * The browser sent back to the redirect URI (302), or the consent page's refusal as an OAuth
 * error `{ error, error_description }` with the platform's `extra` fields.
 */
export function answerConsent(
  response: ServerResponse,
  answer: ReturnType<FakeOAuthProvider['authorize']>,
  extra: Record<string, unknown> = {},
): void {
  if ('redirect' in answer) {
    response.writeHead(302, { location: answer.redirect }).end();
    return;
  }
  sendJson(response, answer.status, {
    error: answer.error,
    error_description: answer.description,
    ...extra,
  });
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresIn: number;
  scopes: string[];
}

export type TokenAnswer =
  | { ok: true; tokens: IssuedTokens }
  | {
      ok: false;
      status: number;
      error: string;
      description: string;
      /** Set when failNextExchange/failNextRefresh asked for it (fakes pass it on as is). */
      scripted?: true;
    };

interface PendingCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | undefined;
}

const token = (prefix: string) => `${prefix}-${randomBytes(18).toString('base64url')}`;
const refusal = (status: number, error: string, description: string): TokenAnswer => ({
  ok: false,
  status,
  error,
  description,
});
const scriptedRefusal = (s: { status: number; error: string; description: string }) => ({
  ok: false as const,
  ...s,
  scripted: true as const,
});

export class FakeOAuthProvider {
  readonly options: FakeOAuthOptions;
  /** Every token set issued, in order. */
  readonly issued: IssuedTokens[] = [];
  readonly #codes = new Map<string, PendingCode>();
  readonly #liveAccess = new Set<string>();
  readonly #liveRefresh = new Map<string, string[]>();
  #deny: { error: string; description: string } | undefined;
  readonly #failExchange: Array<{ status: number; error: string; description: string }> = [];
  readonly #failRefresh: Array<{ status: number; error: string; description: string }> = [];

  constructor(options: FakeOAuthOptions) {
    this.options = options;
  }

  /** The next consent is denied (the browser comes back with `?error=`). */
  denyNextConsent(error = 'access_denied', description = 'The user denied the request'): void {
    this.#deny = { error, description };
  }

  /** The next code exchange is refused with this error (status 400 unless given). */
  failNextExchange(error = 'invalid_grant', description = 'Scripted refusal', status = 400): void {
    this.#failExchange.push({ status, error, description });
  }

  /** The next refresh answers this (e.g. 500 server_error, to test a transient failure). */
  failNextRefresh(error = 'server_error', description = 'Scripted failure', status = 500): void {
    this.#failRefresh.push({ status, error, description });
  }

  /** Refreshing with this token (without one: every token) answers invalid_grant from now on. */
  revoke(refreshToken?: string): void {
    if (refreshToken === undefined) this.#liveRefresh.clear();
    else this.#liveRefresh.delete(refreshToken);
  }

  /**
   * The user removed the app: every refresh token issued so far answers invalid_grant and no
   * access token issued so far is valid any more.
   */
  revokeAll(): void {
    this.#liveRefresh.clear();
    this.#liveAccess.clear();
  }

  isValidAccessToken(accessToken: string | undefined): boolean {
    return accessToken !== undefined && this.#liveAccess.has(accessToken);
  }

  /** Whether this provider issued the refresh token (live, rotated away or revoked). */
  issuedRefreshToken(refreshToken: string | undefined): boolean {
    return refreshToken !== undefined && this.issued.some((t) => t.refreshToken === refreshToken);
  }

  /**
   * The consent page: where the browser is redirected (with a code, or an error), or why the
   * request is refused before any redirect (unknown client, no redirect_uri).
   */
  authorize(
    query: ConsentQuery,
  ): { redirect: string } | { status: number; error: string; description: string } {
    if (query.clientId !== this.options.clientId) {
      return { status: 400, error: 'invalid_client', description: 'invalid client_id' };
    }
    if (!query.redirectUri) {
      return { status: 400, error: 'invalid_request', description: 'missing redirect_uri' };
    }
    const back = new URL(query.redirectUri);
    if (query.state !== undefined) back.searchParams.set('state', query.state);
    const denied = this.#deny;
    if (denied) {
      this.#deny = undefined;
      back.searchParams.set('error', denied.error);
      back.searchParams.set('error_description', denied.description);
      return { redirect: back.toString() };
    }
    const hasChallenge = query.codeChallenge !== undefined && query.codeChallenge !== '';
    if (this.options.pkce === 'required' && !hasChallenge) {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'code_challenge is required');
      return { redirect: back.toString() };
    }
    if (hasChallenge && this.options.pkce !== 'none' && query.codeChallengeMethod !== 'S256') {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'only S256 is supported');
      return { redirect: back.toString() };
    }
    const code = token('code');
    this.#codes.set(code, {
      clientId: query.clientId,
      redirectUri: query.redirectUri,
      scopes: query.scope.split(/[\s,]+/).filter((s) => s !== ''),
      challenge: hasChallenge && this.options.pkce !== 'none' ? query.codeChallenge : undefined,
    });
    back.searchParams.set('code', code);
    return { redirect: back.toString() };
  }

  exchangeCode(input: {
    code: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
    redirectUri: string | undefined;
    codeVerifier?: string | undefined;
  }): TokenAnswer {
    const scripted = this.#failExchange.shift();
    if (scripted) return scriptedRefusal(scripted);
    if (
      input.clientId !== this.options.clientId ||
      input.clientSecret !== this.options.clientSecret
    ) {
      return refusal(401, 'invalid_client', 'Client authentication failed');
    }
    const pending = input.code === undefined ? undefined : this.#codes.get(input.code);
    if (!pending || input.code === undefined) {
      return refusal(400, 'invalid_grant', 'The authorization code is invalid or was used');
    }
    this.#codes.delete(input.code); // single use, even when the rest fails
    if (pending.redirectUri !== input.redirectUri) {
      return refusal(400, 'invalid_grant', 'redirect_uri does not match the consent request');
    }
    if (pending.challenge !== undefined) {
      const verifier = input.codeVerifier ?? '';
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (computed !== pending.challenge) {
        return refusal(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
      }
    }
    return { ok: true, tokens: this.#issue(pending.scopes) };
  }

  refresh(input: {
    refreshToken: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
  }): TokenAnswer {
    const scripted = this.#failRefresh.shift();
    if (scripted) return scriptedRefusal(scripted);
    if (
      input.clientId !== this.options.clientId ||
      input.clientSecret !== this.options.clientSecret
    ) {
      return refusal(401, 'invalid_client', 'Client authentication failed');
    }
    const scopes =
      input.refreshToken === undefined ? undefined : this.#liveRefresh.get(input.refreshToken);
    if (!scopes || input.refreshToken === undefined) {
      return refusal(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked');
    }
    if (this.options.rotateRefreshTokens) this.#liveRefresh.delete(input.refreshToken);
    const issued = this.#issue(
      scopes,
      this.options.rotateRefreshTokens ? undefined : input.refreshToken,
    );
    return { ok: true, tokens: issued };
  }

  #issue(scopes: string[], keepRefresh?: string): IssuedTokens {
    const refreshToken =
      this.options.issueRefreshTokens === false ? null : (keepRefresh ?? token('refresh'));
    const tokens: IssuedTokens = {
      accessToken: token('access'),
      refreshToken: keepRefresh === undefined ? refreshToken : null,
      expiresIn: this.options.accessTokenTtlSeconds ?? 3_600,
      scopes,
    };
    this.#liveAccess.add(tokens.accessToken);
    if (refreshToken !== null) this.#liveRefresh.set(refreshToken, scopes);
    this.issued.push(tokens);
    return tokens;
  }
}
