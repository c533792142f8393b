import { hashApiKey, isApiKeyFormat } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import { type DomainError, forbidden, unauthorized } from '../errors.ts';
import type { AccountContext, Actor, Role } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';
import { createPersonalAccount } from './personal-account.ts';

export const LAST_USED_RESOLUTION_MS = 60_000;

/** A team key is one whose account is not its creator's personal account (same id as the user). */
export const isTeamKey = (actor: Actor): actor is Actor & { keyAccountId: string } =>
  actor.keyAccountId !== null && actor.keyAccountId !== actor.userId;

export async function authenticateApiKey(
  deps: CoreDeps,
  rawKey: string,
): Promise<Result<Actor, DomainError>> {
  // A malformed key cannot match: answer without touching storage.
  if (!isApiKeyFormat(rawKey)) return err(unauthorized());
  const key = await deps.repos.apiKeys.findByHash(hashApiKey(rawKey));
  if (!key) return err(unauthorized());
  const now = deps.clock.now();
  const lastUsed = key.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  // Minute resolution is enough for "last used", and spares a write on every request.
  if (now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) {
    await deps.repos.apiKeys.touchLastUsed(key.id, now);
  }
  return ok({ userId: key.createdBy, apiKeyId: key.id, keyAccountId: key.accountId });
}

/** A JWT `sub`; the first time it is seen it becomes a user with a personal account. */
export async function authenticateSubject(deps: CoreDeps, subject: string): Promise<Actor> {
  const actorOf = (userId: string): Actor => ({ userId, apiKeyId: null, keyAccountId: null });
  const existing = await deps.repos.accounts.findUserBySubject(subject);
  if (existing) return actorOf(existing.id);
  const now = deps.clock.now();
  const user = { id: deps.ids.newId(), email: null, externalSubject: subject, createdAt: now };
  try {
    await deps.uow.run(async (repos) => {
      await repos.accounts.createUser(user);
      await createPersonalAccount(repos, user);
    });
    return actorOf(user.id);
  } catch (error) {
    // Two first requests of one subject race on the unique subject: the loser uses the winner.
    const winner = await deps.repos.accounts.findUserBySubject(subject);
    if (winner) return actorOf(winner.id);
    throw error;
  }
}

/** The caller's role in a team, as seen through the credential; null when out of reach. */
async function teamRole(deps: CoreDeps, actor: Actor, accountId: string): Promise<Role | null> {
  const membership = await deps.repos.accounts.findMembership(accountId, actor.userId);
  if (isTeamKey(actor)) {
    // A team key keeps acting for its team even if its creator has since left it.
    return accountId === actor.keyAccountId ? (membership?.role ?? 'member') : null;
  }
  return membership?.role ?? null;
}

export async function resolveContext(
  deps: CoreDeps,
  actor: Actor,
  workspaceId?: string,
): Promise<Result<AccountContext, DomainError>> {
  const context = (accountId: string, role: Role): AccountContext => ({
    accountId,
    userId: actor.userId,
    role,
    apiKeyId: actor.apiKeyId,
  });
  if (workspaceId === undefined || workspaceId === '') {
    if (!isTeamKey(actor)) return ok(context(actor.userId, 'owner'));
    return ok(
      context(actor.keyAccountId, (await teamRole(deps, actor, actor.keyAccountId)) ?? 'member'),
    );
  }
  const notMember = forbidden('you are not a member of this workspace');
  if (isTeamKey(actor)) {
    if (workspaceId !== actor.keyAccountId) {
      return err(forbidden('this API key belongs to another workspace'));
    }
    return ok(context(workspaceId, (await teamRole(deps, actor, workspaceId)) ?? 'member'));
  }
  if (workspaceId === actor.userId) return ok(context(workspaceId, 'owner'));
  // Unknown and malformed ids answer exactly like foreign ones: no existence leak.
  if (!isUuid(workspaceId)) return err(notMember);
  const role = await teamRole(deps, actor, workspaceId);
  return role ? ok(context(workspaceId, role)) : err(notMember);
}

/** The caller's role in an account that owns a looked-up resource, or null (answer not_found). */
export async function canAccessAccount(
  deps: CoreDeps,
  actor: Actor,
  accountId: string,
): Promise<Role | null> {
  if (!isTeamKey(actor) && accountId === actor.userId) return 'owner';
  if (!isUuid(accountId)) return null;
  return teamRole(deps, actor, accountId);
}
