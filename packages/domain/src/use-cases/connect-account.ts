/**
 * Connecting a real account (docs/connect.md#the-flow): the API hands out a consent URL of ours;
 * the browser that opens it is bound to the flow and sent on to the platform
 * (open-consent.ts); the platform sends the browser back to the callback with a code; the
 * service exchanges it, reads who consented and creates or updates the connection(s).
 *
 * The state is 32 random bytes, stored as a SHA-256 hash, single-use (taken and deleted in one
 * statement), valid 10 minutes, for one platform and one account; the callback accepts it only
 * from the browser bound to it (connect-browser.ts). The PKCE verifier never leaves the server
 * (stored encrypted with the state).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { type DomainError, type Problem, validationFailed } from '../errors.ts';
import type {
  AccountContext,
  OAuthState,
  Platform,
  PlatformData,
  SocialAccount,
} from '../model.ts';
import type { PlatformOAuth } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { isKnownPlatform, platformChoices } from '../rules/platform-options.ts';
import { isAbsent, typeName } from '../rules/shape.ts';
import { SecretUnreadableError, secretBinding } from '../secret-cipher.ts';
import { browserMatches } from './connect-browser.ts';
import { saveIdentitiesWithinQuota } from './connection-identities.ts';
import { registeredApps } from './platform-apps.ts';

export const CONNECT_STATE_TTL_MS = 10 * 60_000;

export interface StartConnectInput {
  platform?: unknown;
  return_url?: unknown;
  /** The platform's own connect fields (PlatformRules.connectFields), e.g. `instance`. */
  [field: string]: unknown;
}

export interface ConnectStart {
  /** Our authorize route (consentUrl): it binds the browser, then redirects to the platform. */
  authorizationUrl: string;
  state: string;
  expiresAt: Date;
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');
export const hashState = (state: string): string =>
  createHash('sha256').update(state, 'utf8').digest('hex');

/** Where the platform sends the browser back: PUBLIC_BASE_URL + /oauth/callback/<platform>. */
export const callbackUrl = (deps: CoreDeps, platform: Platform): string =>
  `${deps.settings.publicBaseUrl.replace(/\/+$/, '')}/oauth/callback/${platform}`;

/** Where the client sends the browser: PUBLIC_BASE_URL + /oauth/authorize/<platform>?state=. */
export function consentUrl(deps: CoreDeps, platform: Platform, state: string): string {
  const url = new URL(
    `${deps.settings.publicBaseUrl.replace(/\/+$/, '')}/oauth/authorize/${platform}`,
  );
  url.searchParams.set('state', state);
  return url.toString();
}

/** PKCE S256: the challenge the platform gets for the verifier kept server-side. */
export const codeChallengeOf = (verifier: string): string =>
  createHash('sha256').update(verifier).digest('base64url');

/** `return_url` must be an absolute URL under one of CONNECT_RETURN_ORIGINS: never an open redirect. */
function returnUrlProblems(deps: CoreDeps, value: unknown): Problem[] {
  if (isAbsent(value)) return [];
  const field = 'return_url';
  if (typeof value !== 'string') {
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ field, message: 'must be an absolute URL' }];
  }
  const allowed = deps.settings.connectReturnOrigins;
  if (allowed.length === 0) {
    return [{ field, message: 'is not allowed: CONNECT_RETURN_ORIGINS is empty' }];
  }
  if (!allowed.includes(url.origin) || url.username !== '' || url.password !== '') {
    return [{ field, message: `must be under one of ${allowed.join(', ')}` }];
  }
  return [];
}

export const platformNotConfigured = (platform: Platform, missing: readonly string[]) =>
  ({
    code: 'platform_not_configured',
    message:
      missing.length > 0
        ? `${platform} accounts cannot be connected: set ${missing.join(' and ')}`
        : `${platform} accounts cannot be connected by this service`,
  }) as const satisfies DomainError;

export function connectorOf(deps: CoreDeps, platform: Platform): PlatformOAuth | DomainError {
  const connector = deps.platforms.oauth(platform);
  const byCredentials = connector ? undefined : deps.platforms.credentials(platform);
  if (byCredentials) {
    const fields = byCredentials.fields.map((field) => field.name).join(' and ');
    return {
      code: 'platform_not_configured',
      message: `${platform} accounts connect by credentials, not OAuth: POST /social-accounts with ${fields}`,
    };
  }
  if (!connector) return platformNotConfigured(platform, []);
  if (connector.missingSettings.length > 0) {
    return platformNotConfigured(platform, connector.missingSettings);
  }
  return connector;
}

const BASE_FIELDS = new Set(['platform', 'return_url']);

/**
 * The platform's own connect fields in `input`: each given one must be one the platform
 * declares, each it requires must be given (the connector's `prepare` checks their values).
 */
function connectFieldsOf(
  deps: CoreDeps,
  platform: Platform,
  input: StartConnectInput,
): { fields: Record<string, unknown>; problems: Problem[] } {
  const declared = deps.platforms.rules(platform)?.connectFields;
  const fields: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const [field, value] of Object.entries(input)) {
    if (BASE_FIELDS.has(field) || value === undefined) continue;
    if (declared?.properties[field] === undefined) {
      problems.push({ field, message: `is not taken when connecting ${platform} accounts` });
    } else fields[field] = value;
  }
  for (const field of declared?.required ?? []) {
    if (isAbsent(fields[field])) {
      problems.push({ field, message: `is required to connect ${platform} accounts` });
    }
  }
  return { fields, problems };
}

/** POST /social-accounts/connect: the consent URL for the account in `ctx`. */
export async function startConnect(
  deps: CoreDeps,
  ctx: AccountContext,
  input: StartConnectInput,
  signal?: AbortSignal,
): Promise<Result<ConnectStart, DomainError>> {
  const problems: Problem[] = [];
  const known = isKnownPlatform(deps.platforms, input.platform);
  if (!known) problems.push({ field: 'platform', message: platformChoices(deps.platforms) });
  problems.push(...returnUrlProblems(deps, input.return_url));
  const extra = known ? connectFieldsOf(deps, input.platform as Platform, input) : null;
  if (extra) problems.push(...extra.problems);
  if (problems.length > 0) return err(validationFailed(problems));
  const platform = input.platform as Platform;
  const connector = connectorOf(deps, platform);
  if ('code' in connector) return err(connector);

  // A platform with its own connect fields readies the flow first (e.g. its app on an instance).
  let connectParams: PlatformData | null = null;
  if (connector.prepare) {
    const prepared = await connector.prepare(
      {
        fields: extra?.fields ?? {},
        redirectUri: callbackUrl(deps, platform),
        apps: registeredApps(deps, platform),
      },
      signal,
    );
    if (!prepared.ok) return err(validationFailed(prepared.problems));
    connectParams = prepared.params;
  }

  const state = base64url(randomBytes(32));
  const verifier = base64url(randomBytes(32));
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CONNECT_STATE_TTL_MS);
  const id = deps.ids.newId();
  const record: OAuthState = {
    id,
    stateHash: hashState(state),
    accountId: ctx.accountId,
    userId: ctx.userId,
    platform,
    codeVerifierCiphertext: deps.cipher.encrypt(verifier, secretBinding.codeVerifier(id)),
    browserHash: null,
    returnUrl: typeof input.return_url === 'string' ? input.return_url : null,
    connectParams,
    expiresAt,
    createdAt: now,
  };
  await deps.repos.oauthStates.insert(record);
  return ok({ authorizationUrl: consentUrl(deps, platform, state), state, expiresAt });
}

/** What the platform put on the callback URL. */
export interface CallbackQuery {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

export type ConnectResult =
  | {
      ok: true;
      platform: Platform;
      connections: SocialAccount[];
      /** Where to send the browser (validated when the flow started); null: show a page. */
      returnUrl: string | null;
    }
  | ConnectRefusal;

/** Why nothing was connected; `returnUrl` null: answer the page, not a redirect. */
export interface ConnectRefusal {
  ok: false;
  platform: Platform;
  code: string;
  message: string;
  returnUrl: string | null;
}

export const refused = (
  platform: Platform,
  code: string,
  message: string,
  returnUrl: string | null = null,
): ConnectRefusal => ({ ok: false, platform, code, message, returnUrl });

/**
 * The flow a callback belongs to, taken (deleted) whatever happens next, or the refusal: no or
 * an unknown state, another platform's, another browser's, expired, or the platform's own
 * error (access denied on the consent page...).
 */
async function takeCallbackState(
  deps: CoreDeps,
  platform: Platform,
  query: CallbackQuery,
  browserNonce: string | undefined,
): Promise<OAuthState | ConnectResult> {
  if (!query.state) return refused(platform, 'invalid_state', 'the callback carries no state');
  // Taken (deleted) whatever happens next: a state is good for one callback only.
  const state = await deps.repos.oauthStates.take(hashState(query.state));
  if (!state) {
    return refused(
      platform,
      'invalid_state',
      'unknown or already used state: start the connection again',
    );
  }
  if (state.platform !== platform) {
    return refused(platform, 'invalid_state', `this state was made for ${state.platform}`);
  }
  if (!browserMatches(state, browserNonce)) {
    // Not the browser that opened the consent: its return_url is the flow owner's, not ours to
    // send this browser to, so the refusal is the page.
    return refused(
      platform,
      'browser_mismatch',
      'this connection was not started in this browser (or its cookie was blocked): start it again',
    );
  }
  const back = state.returnUrl;
  if (state.expiresAt.getTime() <= deps.clock.now().getTime()) {
    return refused(
      platform,
      'state_expired',
      'the connection was not completed within 10 minutes: start it again',
      back,
    );
  }
  if (query.error) {
    const description = query.error_description?.slice(0, 300);
    const message =
      query.error === 'access_denied'
        ? 'access was not granted on the consent page'
        : `the platform answered ${query.error}`;
    return refused(
      platform,
      query.error.slice(0, 100),
      description ? `${message}: ${description}` : message,
      back,
    );
  }
  return state;
}

/**
 * GET /oauth/callback/:platform. Never throws for bad input: every refusal (unknown, replayed,
 * expired or foreign state, another browser, denied consent, failed exchange) creates nothing
 * and says why. `browserNonce` is the flow's cookie as this browser sent it.
 */
export async function completeConnect(
  deps: CoreDeps,
  platform: Platform,
  query: CallbackQuery,
  browserNonce: string | undefined,
  signal?: AbortSignal,
): Promise<ConnectResult> {
  const taken = await takeCallbackState(deps, platform, query, browserNonce);
  if ('ok' in taken) return taken;
  const state = taken;
  const back = state.returnUrl;
  if (!query.code) return refused(platform, 'invalid_request', 'the platform sent no code', back);
  const connector = connectorOf(deps, platform);
  if ('code' in connector) return refused(platform, connector.code, connector.message, back);

  let codeVerifier: string;
  try {
    codeVerifier = deps.cipher.decrypt(
      state.codeVerifierCiphertext,
      secretBinding.codeVerifier(state.id),
    );
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    const message =
      'this connect flow can no longer be read (the encryption key changed); start it again';
    return refused(platform, 'invalid_state', message, back);
  }
  const outcome = await connector.connect(
    {
      code: query.code,
      codeVerifier,
      redirectUri: callbackUrl(deps, platform),
      ...(state.connectParams ? { params: state.connectParams } : {}),
      apps: registeredApps(deps, platform),
    },
    signal,
  );
  if (!outcome.ok) return refused(platform, outcome.error.code, outcome.error.message, back);
  if (outcome.identities.length === 0) {
    return refused(
      platform,
      'nothing_granted',
      'the consent granted no account to publish to',
      back,
    );
  }
  const saved = await saveIdentitiesWithinQuota(deps, state, outcome.identities);
  if (!saved.ok) return refused(platform, saved.error.code, saved.error.message, back);
  const connections = saved.value;
  deps.logger.info(
    { platform, accountId: state.accountId, connections: connections.map((c) => c.id) },
    'accounts connected',
  );
  return { ok: true, platform, connections, returnUrl: back };
}
