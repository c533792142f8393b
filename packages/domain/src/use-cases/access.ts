import { hashApiKey, isApiKeyFormat } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import { type DomainError, forbidden, unauthorized } from '../errors.ts';
import type { AccountContext, Actor, Role } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { mayHoldTeamKeys } from '../rules/account-rules.ts';
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
  const actor: Actor = { userId: key.createdBy, apiKeyId: key.id, keyAccountId: key.accountId };
  if (isTeamKey(actor)) {
    const held = await teamKeyHolderRole(deps, actor);
    if (!held.ok) return held;
    actor.keyRole = held.value;
  }
  const now = deps.clock.now();
  const lastUsed = key.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  // Minute resolution is enough for "last used", and spares a write on every request.
  if (now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) {
    await deps.repos.apiKeys.touchLastUsed(key.id, now);
  }
  return ok(actor);
}

/**
 * The role a team key acts with: its creator's, while the creator is a member whose role holds
 * team keys. Read on every request, never from a cache, so a removal or demotion stops the key
 * at once in every process.
 */
async function teamKeyHolderRole(
  deps: CoreDeps,
  actor: Actor & { keyAccountId: string },
): Promise<Result<Role, DomainError>> {
  const membership = await deps.repos.accounts.findMembership(actor.keyAccountId, actor.userId);
  if (!membership) {
    return err(unauthorized("this API key's creator is no longer a member of its workspace"));
  }
  if (!mayHoldTeamKeys(membership.role)) {
    return err(
      forbidden(
        `this API key's creator is now a ${membership.role} of its workspace, and only owners and admins hold team keys`,
      ),
    );
  }
  return ok(membership.role);
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
  if (isTeamKey(actor)) {
    if (accountId !== actor.keyAccountId) return null;
    // Read when the key was authenticated; an actor made otherwise asks.
    if (actor.keyRole) return actor.keyRole;
    const held = await teamKeyHolderRole(deps, actor);
    return held.ok ? held.value : null;
  }
  const membership = await deps.repos.accounts.findMembership(accountId, actor.userId);
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
  const keyRefused = unauthorized("this API key's creator may no longer act in its workspace");
  if (workspaceId === undefined || workspaceId === '') {
    if (!isTeamKey(actor)) return ok(context(actor.userId, 'owner'));
    const role = await teamRole(deps, actor, actor.keyAccountId);
    return role ? ok(context(actor.keyAccountId, role)) : err(keyRefused);
  }
  const notMember = forbidden('you are not a member of this workspace');
  if (isTeamKey(actor)) {
    if (workspaceId !== actor.keyAccountId) {
      return err(forbidden('this API key belongs to another workspace'));
    }
    const role = await teamRole(deps, actor, workspaceId);
    return role ? ok(context(workspaceId, role)) : err(keyRefused);
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
