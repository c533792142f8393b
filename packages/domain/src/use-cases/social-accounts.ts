import type { CoreDeps } from '../deps.ts';
import { type DomainError, notFound, validationFailed } from '../errors.ts';
import type { AccountContext, Actor, Platform, SocialAccount } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { type ConnectSocialAccountInput, validateConnectInput } from '../rules/account-rules.ts';
import { parseIsoInstant } from '../rules/iso-time.ts';
import { isKnownPlatform } from '../rules/platform-options.ts';
import { isUuid } from '../rules/shape.ts';
import { secretBinding } from '../secret-cipher.ts';
import { canAccessAccount } from './access.ts';
import { connectWithCredentials, unwantedCredentials } from './connect-credentials.ts';
import { connectionQuotaRefusal } from './connection-identities.ts';
import { connectedEvent, connectionEvent } from './event-bodies.ts';
import { emitEvents, storeEvents } from './event-deliveries.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';

/**
 * Registers a connection; its tokens are stored only as ciphertext. A platform connected by
 * credentials trades them for its tokens first (connect-credentials.ts).
 */
export async function connectSocialAccount(
  deps: CoreDeps,
  ctx: AccountContext,
  input: ConnectSocialAccountInput,
  signal?: AbortSignal,
): Promise<Result<SocialAccount, DomainError>> {
  const known = isKnownPlatform(deps.platforms, input.platform);
  const credentials = known ? deps.platforms.credentials(input.platform as Platform) : undefined;
  if (credentials && input.sandbox !== true) {
    return connectWithCredentials(deps, ctx, credentials, input, signal);
  }
  const problems = [
    ...validateConnectInput(input, deps.platforms),
    ...unwantedCredentials(
      input,
      input.sandbox === true ? 'by a sandbox connection' : `for ${String(input.platform)}`,
    ),
  ];
  if (problems.length > 0) return err(validationFailed(problems));
  if (input.sandbox === true) return createSandboxConnection(deps, ctx, input);
  const now = deps.clock.now();
  const refreshToken =
    typeof input.refreshToken === 'string' && input.refreshToken !== '' ? input.refreshToken : null;
  const id = deps.ids.newId();
  const connection: SocialAccount = {
    id,
    accountId: ctx.accountId,
    platform: input.platform as Platform,
    externalId: String(input.externalId).trim(),
    displayName: typeof input.displayName === 'string' ? input.displayName : null,
    accessTokenCiphertext: deps.cipher.encrypt(
      String(input.accessToken),
      secretBinding.accessToken(id),
    ),
    refreshTokenCiphertext:
      refreshToken === null
        ? null
        : deps.cipher.encrypt(refreshToken, secretBinding.refreshToken(id)),
    tokenExpiresAt:
      typeof input.tokenExpiresAt === 'string' ? parseIsoInstant(input.tokenExpiresAt) : null,
    scopes: [],
    status: 'active',
    sandbox: false,
    createdAt: now,
    updatedAt: now,
  };
  return insertWithinQuota(deps, connection);
}

/**
 * Inserts a new connection unless the account holds SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT already:
 * counted and inserted in one unit of work, the account locked first.
 */
async function insertWithinQuota(
  deps: CoreDeps,
  connection: SocialAccount,
): Promise<Result<SocialAccount, DomainError>> {
  const stored = await deps.uow.run(async (repos) => {
    const full = await connectionQuotaRefusal({ ...deps, repos }, connection.accountId, 1);
    if (full) return err(full);
    await repos.socialAccounts.insert(connection);
    // Connected and announced together: the deliveries commit with the connection.
    return ok(await storeEvents(deps, repos, [connectedEvent(connection)]));
  });
  if (!stored.ok) return stored;
  await enqueueDeliveries(deps, stored.value);
  return ok(connection);
}

/**
 * A sandbox connection (docs/connect.md#sandbox-connections): no token, never calls the platform. Its token
 * column holds an encrypted placeholder that no publisher ever receives.
 */
function createSandboxConnection(
  deps: CoreDeps,
  ctx: AccountContext,
  input: ConnectSocialAccountInput,
): Promise<Result<SocialAccount, DomainError>> {
  const now = deps.clock.now();
  const id = deps.ids.newId();
  const connection: SocialAccount = {
    id,
    accountId: ctx.accountId,
    platform: input.platform as Platform,
    externalId:
      typeof input.externalId === 'string' && input.externalId.trim() !== ''
        ? input.externalId.trim()
        : `sandbox-${id}`,
    displayName: typeof input.displayName === 'string' ? input.displayName : null,
    accessTokenCiphertext: deps.cipher.encrypt('sandbox', secretBinding.accessToken(id)),
    refreshTokenCiphertext: null,
    tokenExpiresAt: null,
    scopes: [],
    status: 'active',
    sandbox: true,
    createdAt: now,
    updatedAt: now,
  };
  return insertWithinQuota(deps, connection);
}

export function listSocialAccounts(deps: CoreDeps, ctx: AccountContext): Promise<SocialAccount[]> {
  return deps.repos.socialAccounts.listByAccount(ctx.accountId);
}

export async function deleteSocialAccount(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<void, DomainError>> {
  const connection = isUuid(id) ? await deps.repos.socialAccounts.findById(id) : null;
  const role = connection ? await canAccessAccount(deps, actor, connection.accountId) : null;
  if (!connection || !role) return err(notFound('social account'));
  if (!(await deps.repos.socialAccounts.delete(connection.id)))
    return err(notFound('social account'));
  // Stored right after the delete (one statement, no unit of work to share): a crash in
  // between loses the event.
  const data = { display_name: connection.displayName };
  await emitEvents(deps, [connectionEvent('social_account.disconnected', connection, data)]);
  return ok(undefined);
}
