/**
 * Saving what a consent (or credentials) granted: each identity becomes a connection of the
 * account, created or renewed, within SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: a renewal always fits, and
 * a consent granting more new identities than there is room for saves none.
 */
import type { CoreDeps } from '../deps.ts';
import { type DomainError, limitExceeded } from '../errors.ts';
import type { OAuthState, SocialAccount } from '../model.ts';
import type { ConnectedIdentity } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { secretBinding } from '../secret-cipher.ts';
import { connectedEvent } from './event-bodies.ts';
import { storeEvents } from './event-deliveries.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';

/**
 * The refusal when `adding` new connections would take the account past
 * SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT (one count of its connections), else null. Every connect
 * path asks in the unit of work that stores (the account then locked); renewing a connection
 * adds none.
 */
export async function connectionQuotaRefusal(
  deps: CoreDeps,
  accountId: string,
  adding: number,
): Promise<DomainError | null> {
  if (adding <= 0) return null;
  const max = deps.settings.maxSocialAccountsPerAccount;
  const held = await deps.repos.socialAccounts.countByAccount(accountId);
  if (held + adding <= max) return null;
  return limitExceeded(
    `an account may hold at most ${max} social accounts (SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT); it holds ${held}: delete one first`,
  );
}

/** Whether saving `identity` creates a connection (false: it renews one the account has). */
async function isNewIdentity(
  deps: CoreDeps,
  state: Pick<OAuthState, 'accountId' | 'platform'>,
  identity: ConnectedIdentity,
): Promise<boolean> {
  const existing = await deps.repos.socialAccounts.findByExternalId(
    state.accountId,
    state.platform,
    identity.externalId,
  );
  return !existing || existing.sandbox;
}

/** How many of `identities` would be new connections (distinct external ids). */
export async function newIdentityCount(
  deps: CoreDeps,
  state: Pick<OAuthState, 'accountId' | 'platform'>,
  identities: readonly ConnectedIdentity[],
): Promise<number> {
  const distinct = [...new Map(identities.map((i) => [i.externalId, i])).values()];
  let count = 0;
  for (const identity of distinct) if (await isNewIdentity(deps, state, identity)) count++;
  return count;
}

/**
 * Saves what one consent (or one credentials connect) granted, or nothing when the new
 * connections among them would pass SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT. Counted and saved in one
 * unit of work, the account locked first (SocialAccountRepository.countByAccount): two connects
 * at the same moment cannot pass the quota together.
 */
export async function saveIdentitiesWithinQuota(
  deps: CoreDeps,
  state: Pick<OAuthState, 'accountId' | 'platform'>,
  identities: readonly ConnectedIdentity[],
): Promise<Result<SocialAccount[], DomainError>> {
  const stored = await deps.uow.run(async (repos) => {
    const inTransaction: CoreDeps = { ...deps, repos };
    const full = await connectionQuotaRefusal(
      inTransaction,
      state.accountId,
      await newIdentityCount(inTransaction, state, identities),
    );
    if (full) return err(full);
    const saved: SocialAccount[] = [];
    for (const identity of identities)
      saved.push(await saveIdentity(inTransaction, state, identity));
    // Connected and announced together: the deliveries commit with the connections.
    const deliveries = await storeEvents(deps, repos, saved.map(connectedEvent));
    return ok({ saved, deliveries });
  });
  if (!stored.ok) return stored;
  await enqueueDeliveries(deps, stored.value.deliveries);
  return ok(stored.value.saved);
}

/**
 * Creates the connection, or renews it when the account already has it (same id). `state`: the
 * OAuth flow, or whatever names the account and platform (a credentials connect).
 */
export async function saveIdentity(
  deps: CoreDeps,
  state: Pick<OAuthState, 'accountId' | 'platform'>,
  identity: ConnectedIdentity,
): Promise<SocialAccount> {
  const { cipher } = deps;
  const now = deps.clock.now();
  const tokens = identity.tokens;
  // Tokens are bound to the row they are stored in: the existing connection's, or a new one.
  const fieldsFor = (id: string) => ({
    displayName: identity.displayName,
    accessTokenCiphertext: cipher.encrypt(tokens.accessToken, secretBinding.accessToken(id)),
    refreshTokenCiphertext:
      tokens.refreshToken === null
        ? null
        : cipher.encrypt(tokens.refreshToken, secretBinding.refreshToken(id)),
    tokenExpiresAt: tokens.expiresAt,
    scopes: tokens.scopes,
    ...(identity.platformData ? { platformData: identity.platformData } : {}),
  });
  const existing = await deps.repos.socialAccounts.findByExternalId(
    state.accountId,
    state.platform,
    identity.externalId,
  );
  if (existing && !existing.sandbox) {
    const fields = fieldsFor(existing.id);
    await deps.repos.socialAccounts.reconnect(existing.id, fields, now);
    return { ...existing, ...fields, status: 'active', updatedAt: now };
  }
  const id = deps.ids.newId();
  const fields = fieldsFor(id);
  const connection: SocialAccount = {
    id,
    accountId: state.accountId,
    platform: state.platform,
    externalId: identity.externalId,
    ...fields,
    status: 'active',
    sandbox: false,
    platformData: identity.platformData ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.repos.socialAccounts.insert(connection);
  return connection;
}
