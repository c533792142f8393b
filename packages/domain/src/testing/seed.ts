import type { CoreDeps } from '../deps.ts';
import type { AccountContext, Actor, ApiKey, Platform, SocialAccount, User } from '../model.ts';
import { secretBinding } from '../secret-cipher.ts';
import { createApiKey } from '../use-cases/api-keys.ts';
import { connectSocialAccount } from '../use-cases/social-accounts.ts';
import { createUser } from '../use-cases/users.ts';
import { createWorkspace } from '../use-cases/workspaces.ts';

/** A user made through the real use case, with its personal-key actor and context. */
export interface SeededUser {
  user: User;
  apiKey: ApiKey;
  rawKey: string;
  actor: Actor;
  ctx: AccountContext;
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(`seed failed: ${result.error.message}`);
  return result.value;
}

export async function seedUser(deps: CoreDeps, email?: string): Promise<SeededUser> {
  const { user, apiKey, rawKey } = unwrap(await createUser(deps, { email }));
  return {
    user,
    apiKey,
    rawKey,
    actor: { userId: user.id, apiKeyId: apiKey.id, keyAccountId: user.id },
    ctx: { accountId: user.id, userId: user.id, role: 'owner', apiKeyId: apiKey.id },
  };
}

/** A team owned by `owner`, with the owner's context in it and a team key actor. */
export async function seedWorkspace(deps: CoreDeps, owner: SeededUser, name = 'team') {
  const account = unwrap(await createWorkspace(deps, owner.actor, { name }));
  const ctx: AccountContext = {
    accountId: account.id,
    userId: owner.user.id,
    role: 'owner',
    apiKeyId: owner.actor.apiKeyId,
  };
  const { key, rawKey } = unwrap(await createApiKey(deps, ctx, { name: `${name} key` }));
  const teamKeyActor: Actor = { userId: owner.user.id, apiKeyId: key.id, keyAccountId: account.id };
  return { account, ctx, teamKey: key, rawTeamKey: rawKey, teamKeyActor };
}

/** An active connection with encrypted tokens (`token-<platform>` unless given). */
export async function seedConnection(
  deps: CoreDeps,
  accountId: string,
  platform: Platform,
  overrides: Partial<SocialAccount> & { accessToken?: string; refreshToken?: string | null } = {},
): Promise<SocialAccount> {
  const { accessToken, refreshToken, ...fields } = overrides;
  const now = deps.clock.now();
  // Tokens are bound to the row's id, so it is chosen first (an override included).
  const id = fields.id ?? deps.ids.newId();
  const connection: SocialAccount = {
    id,
    accountId,
    platform,
    externalId: `${platform}-user`,
    displayName: null,
    accessTokenCiphertext: deps.cipher.encrypt(
      accessToken ?? `token-${platform}`,
      secretBinding.accessToken(id),
    ),
    refreshTokenCiphertext: refreshToken
      ? deps.cipher.encrypt(refreshToken, secretBinding.refreshToken(id))
      : null,
    tokenExpiresAt: null,
    scopes: [],
    status: 'active',
    sandbox: false,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
  await deps.repos.socialAccounts.insert(connection);
  return connection;
}

/**
 * A user (seedUser) with one active connection per platform, each made through the real
 * connectSocialAccount use case (tokens `token-<platform>`), or a sandbox connection for the
 * platforms in `options.sandbox`. Connection ids by platform.
 */
export async function seedUserWithConnections(
  deps: CoreDeps,
  platforms: readonly Platform[],
  email?: string,
  options: { sandbox?: readonly Platform[] } = {},
): Promise<SeededUser & { connections: Partial<Record<Platform, string>> }> {
  const seeded = await seedUser(deps, email);
  const connections: Partial<Record<Platform, string>> = {};
  const sandbox = new Set(options.sandbox ?? []);
  for (const platform of platforms) {
    const connection = unwrap(
      await connectSocialAccount(
        deps,
        seeded.ctx,
        sandbox.has(platform)
          ? { platform, sandbox: true }
          : {
              platform,
              externalId: `${platform}-${deps.ids.newId()}`,
              accessToken: `token-${platform}`,
            },
      ),
    );
    connections[platform] = connection.id;
  }
  return { ...seeded, connections };
}
