import type { Platform } from '../model.ts';

/** Tokens a platform granted, with what it said about them. */
export interface GrantedTokens {
  accessToken: string;
  refreshToken: string | null;
  /** null: the platform gave no expiry (e.g. page tokens that live as long as the grant). */
  expiresAt: Date | null;
  /** The scopes the user granted, in the platform's own names. */
  scopes: string[];
}

/** One connection a consent yields: the user, a channel, a Page, an organization... */
export interface ConnectedIdentity {
  /** The id on the platform (open_id, channel id, Page id, `urn:li:organization:…`). */
  externalId: string;
  displayName: string | null;
  tokens: GrantedTokens;
}

export interface AuthorizationRequest {
  state: string;
  /** PUBLIC_BASE_URL + /oauth/callback/<platform>. */
  redirectUri: string;
  /** PKCE S256 challenge of the verifier kept server-side (used where the platform has PKCE). */
  codeChallenge: string;
}

export interface CodeExchange {
  code: string;
  /** The PKCE verifier of this flow (sent only where the platform has PKCE). */
  codeVerifier: string;
  redirectUri: string;
}

/** Why a connect step failed: `code` is the platform's error code where it gave one. */
export interface OAuthFailure {
  code: string;
  message: string;
}

export type ConnectOutcome =
  | { ok: true; identities: ConnectedIdentity[] }
  | { ok: false; error: OAuthFailure };

/** The stored credentials of a connection, decrypted for a refresh. */
export interface RefreshInput {
  externalId: string;
  accessToken: string;
  refreshToken: string | null;
}

export type RefreshOutcome =
  | { kind: 'refreshed'; tokens: GrantedTokens }
  /** The platform refused for good (invalid_grant, revoked, code 190): re-authorise. */
  | { kind: 'refused'; reason: string }
  /** Could not reach the platform or it failed transiently: try again later. */
  | { kind: 'failed'; reason: string };

/**
 * One platform's OAuth: the consent URL, the code exchange (plus the long-lived exchange and
 * the identity lookup), and token renewal. Implemented in the platform's folder.
 */
export interface PlatformOAuth {
  readonly platform: Platform;
  /**
   * The variables to set before accounts can be connected (client id/secret); empty when
   * configured.
   */
  readonly missingSettings: readonly string[];
  authorizationUrl(request: AuthorizationRequest): string;
  /** Exchanges the code and reads who consented; never throws. */
  connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome>;
  /**
   * Renews tokens before they expire. Absent when the platform's tokens need no renewal
   * (they do not expire, or it has no refresh flow).
   */
  refresh?(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome>;
}
