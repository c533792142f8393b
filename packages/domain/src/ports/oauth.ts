import type { Problem } from '../errors.ts';
import type { Platform, PlatformData } from '../model.ts';

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
  /** Non-secret facts its publisher and rules need (stored on the connection). */
  platformData?: PlatformData;
}

export interface AuthorizationRequest {
  state: string;
  /** PUBLIC_BASE_URL + /oauth/callback/<platform>. */
  redirectUri: string;
  /** PKCE S256 challenge of the verifier kept server-side (used where the platform has PKCE). */
  codeChallenge: string;
  /** What `prepare` made of the flow's connect fields (absent: the platform takes none). */
  params?: PlatformData;
}

export interface CodeExchange {
  code: string;
  /** The PKCE verifier of this flow (sent only where the platform has PKCE). */
  codeVerifier: string;
  redirectUri: string;
  /** What `prepare` made of the flow's connect fields (absent: the platform takes none). */
  params?: PlatformData;
  /** The platform's registered apps (present for connectors that `prepare`). */
  apps?: RegisteredApps;
}

/** An app's credentials on one instance, its secret decrypted. */
export interface RegisteredApp {
  clientId: string;
  clientSecret: string;
}

/**
 * The apps this service registered on the instances of one platform (kept per platform and
 * instance, the secret encrypted at rest): what a connector of a platform without one central
 * OAuth provider uses to register once per instance and reuse after.
 */
export interface RegisteredApps {
  find(instance: string): Promise<RegisteredApp | null>;
  /** Keeps `app` unless one is kept already (a concurrent first connect): returns the one kept. */
  keep(instance: string, app: RegisteredApp): Promise<RegisteredApp>;
}

/** What `prepare` gets: the extra fields as the client sent them, and where apps are kept. */
export interface ConnectPreparation {
  /** The platform's declared connect fields present in the request (already schema-checked). */
  fields: Readonly<Record<string, unknown>>;
  redirectUri: string;
  apps: RegisteredApps;
}

/**
 * `params` are stored with the flow (not secret) and handed to the consent URL and the code
 * exchange; `problems` refuse the request (400 validation_failed, fields as in the body).
 */
export type PrepareOutcome =
  | { ok: true; params: PlatformData }
  | { ok: false; problems: Problem[] };

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
  /**
   * Readies a flow from the platform's extra connect fields (PlatformRules.connectFields)
   * before its state is made: e.g. checks an instance URL and registers the app there on first
   * use. Absent: the platform takes no extra fields.
   */
  prepare?(preparation: ConnectPreparation, signal?: AbortSignal): Promise<PrepareOutcome>;
  authorizationUrl(request: AuthorizationRequest): string;
  /** Exchanges the code and reads who consented; never throws. */
  connect(exchange: CodeExchange, signal?: AbortSignal): Promise<ConnectOutcome>;
  /**
   * Renews tokens before they expire. Absent when the platform's tokens need no renewal
   * (they do not expire, or it has no refresh flow).
   */
  refresh?(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome>;
}
