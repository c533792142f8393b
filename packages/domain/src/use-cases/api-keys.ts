import { generateApiKey, hashApiKey, keyPrefix } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import {
  type DomainError,
  forbidden,
  limitExceeded,
  notFound,
  validationFailed,
} from '../errors.ts';
import type { AccountContext, Actor, ApiKey } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { mayHoldTeamKeys } from '../rules/account-rules.ts';
import { validateApiKeyLimit, validateApiKeyName } from '../rules/names.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount } from './access.ts';

/** A key record for `rawKey` (a fresh one unless given); only its hash and prefix are kept. */
export function newApiKey(
  deps: CoreDeps,
  owner: { accountId: string; createdBy: string; name: string },
  rawKey: string = generateApiKey(),
): { key: ApiKey; rawKey: string } {
  const key: ApiKey = {
    id: deps.ids.newId(),
    accountId: owner.accountId,
    createdBy: owner.createdBy,
    name: owner.name,
    keyHash: hashApiKey(rawKey),
    keyPrefix: keyPrefix(rawKey),
    createdAt: deps.clock.now(),
    lastUsedAt: null,
  };
  return { key, rawKey };
}

/** A team context (a personal account's id is its user's id). */
const inTeam = (ctx: AccountContext): boolean => ctx.accountId !== ctx.userId;

export async function createApiKey(
  deps: CoreDeps,
  ctx: AccountContext,
  input: { name?: unknown },
): Promise<Result<{ key: ApiKey; rawKey: string }, DomainError>> {
  if (inTeam(ctx) && !mayHoldTeamKeys(ctx.role)) {
    return err(forbidden('only an owner or an admin may create a team API key'));
  }
  const problems = validateApiKeyName(input.name);
  if (problems.length > 0) return err(validationFailed(problems));
  const created = newApiKey(deps, {
    accountId: ctx.accountId,
    createdBy: ctx.userId,
    name: String(input.name).trim(),
  });
  // Count and insert in one unit of work so the limit is checked against what is inserted.
  return deps.uow.run(async (repos) => {
    const count = await repos.apiKeys.countByAccount(ctx.accountId);
    const limit = validateApiKeyLimit(count, deps.settings.maxApiKeysPerAccount);
    if (limit[0]) return err(limitExceeded(limit[0].message));
    await repos.apiKeys.insert(created.key);
    return ok(created);
  });
}

/** Owners and admins see every key of a team; a member only the ones they created. */
export async function listApiKeys(deps: CoreDeps, ctx: AccountContext): Promise<ApiKey[]> {
  const keys = await deps.repos.apiKeys.listByAccount(ctx.accountId);
  if (!inTeam(ctx) || mayHoldTeamKeys(ctx.role)) return keys;
  return keys.filter((key) => key.createdBy === ctx.userId);
}

export async function revokeApiKey(
  deps: CoreDeps,
  actor: Actor,
  keyId: string,
): Promise<Result<void, DomainError>> {
  const key = isUuid(keyId) ? await deps.repos.apiKeys.findById(keyId) : null;
  const role = key ? await canAccessAccount(deps, actor, key.accountId) : null;
  if (!key || !role) return err(notFound('API key'));
  // The creator may revoke their own key whatever their role now (its keys no longer act).
  const mayRevoke = mayHoldTeamKeys(role) || key.createdBy === actor.userId;
  if (!mayRevoke)
    return err(forbidden('only an owner, an admin or its creator may revoke this key'));
  if (!(await deps.repos.apiKeys.delete(key.id))) return err(notFound('API key'));
  return ok(undefined);
}
