import type { Account, User } from '../model.ts';
import type { Repositories } from '../ports/index.ts';

/**
 * Every user owns a personal account with the same id. It has no membership rows: access to it
 * is decided by that id equality alone.
 */
export async function createPersonalAccount(repos: Repositories, user: User): Promise<Account> {
  const account: Account = {
    id: user.id,
    kind: 'personal',
    name: user.email ?? 'personal',
    approvalRequired: false,
    createdAt: user.createdAt,
  };
  await repos.accounts.createAccount(account);
  return account;
}
