import { hashApiKey, isApiKeyFormat } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import { conflict, type DomainError, validationFailed } from '../errors.ts';
import type { ApiKey, User } from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { validateEmail } from '../rules/account-rules.ts';
import { newApiKey } from './api-keys.ts';
import { createPersonalAccount } from './personal-account.ts';

export async function createUser(
  deps: CoreDeps,
  input: { email?: unknown },
): Promise<Result<{ user: User; apiKey: ApiKey; rawKey: string }, DomainError>> {
  const problems = validateEmail(input.email);
  if (problems.length > 0) return err(validationFailed(problems));
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : null;
  const user: User = {
    id: deps.ids.newId(),
    email,
    externalSubject: null,
    createdAt: deps.clock.now(),
  };
  const { key, rawKey } = newApiKey(deps, {
    accountId: user.id,
    createdBy: user.id,
    name: 'default',
  });
  return deps.uow.run(async (repos) => {
    if (email && (await repos.accounts.findUserByEmail(email))) {
      return err(conflict('a user with this email already exists'));
    }
    await repos.accounts.createUser(user);
    await createPersonalAccount(repos, user);
    await repos.apiKeys.insert(key);
    return ok({ user, apiKey: key, rawKey });
  });
}

/**
 * BOOTSTRAP_API_KEY: makes sure some user owns exactly this key, creating one the first time.
 * A malformed key is a configuration error, so it throws instead of returning a Result.
 */
export async function ensureUserWithKey(
  deps: CoreDeps,
  rawKey: string,
): Promise<{ userId: string; created: boolean }> {
  if (!isApiKeyFormat(rawKey)) {
    throw new Error('BOOTSTRAP_API_KEY must be "sp_" followed by 40 letters or digits');
  }
  const existing = await deps.repos.apiKeys.findByHash(hashApiKey(rawKey));
  if (existing) return { userId: existing.createdBy, created: false };
  const user: User = {
    id: deps.ids.newId(),
    email: null,
    externalSubject: null,
    createdAt: deps.clock.now(),
  };
  const { key } = newApiKey(
    deps,
    { accountId: user.id, createdBy: user.id, name: 'bootstrap' },
    rawKey,
  );
  try {
    await deps.uow.run(async (repos) => {
      await repos.accounts.createUser(user);
      await createPersonalAccount(repos, user);
      await repos.apiKeys.insert(key);
    });
    return { userId: user.id, created: true };
  } catch (error) {
    // Several processes starting at once race on the unique key hash: one of them wins.
    const winner = await deps.repos.apiKeys.findByHash(key.keyHash);
    if (winner) return { userId: winner.createdBy, created: false };
    throw error;
  }
}

export function countUsers(deps: CoreDeps): Promise<number> {
  return deps.repos.accounts.countUsers();
}
