import type { Account, Membership, Role, User } from '../model.ts';
import type { AccountRepository, ApiKeyRepository } from '../ports/index.ts';
import { ConstraintError, copy, type MemoryStore } from './memory-store.ts';

const byCreatedAt = <T extends { createdAt: Date }>(a: T, b: T) =>
  a.createdAt.getTime() - b.createdAt.getTime();

export function memoryAccountRepository(store: MemoryStore): AccountRepository {
  const t = () => store.tables;
  const memberKey = (accountId: string, userId: string) => `${accountId}/${userId}`;
  return {
    async createUser(user: User) {
      const users = [...t().users.values()];
      if (user.email !== null && users.some((u) => u.email === user.email)) {
        throw new ConstraintError(`duplicate user email: ${user.email}`);
      }
      if (
        user.externalSubject !== null &&
        users.some((u) => u.externalSubject === user.externalSubject)
      ) {
        throw new ConstraintError(`duplicate user subject: ${user.externalSubject}`);
      }
      store.insertUnique(t().users, user.id, user, 'user');
    },
    async findUserById(id) {
      return copy(t().users.get(id) ?? null);
    },
    async findUserByEmail(email) {
      return copy([...t().users.values()].find((u) => u.email === email) ?? null);
    },
    async findUserBySubject(subject) {
      return copy([...t().users.values()].find((u) => u.externalSubject === subject) ?? null);
    },
    async createAccount(account: Account) {
      store.insertUnique(t().accounts, account.id, account, 'account');
    },
    async findAccountById(id) {
      return copy(t().accounts.get(id) ?? null);
    },
    async setApprovalRequired(accountId, required) {
      const account = t().accounts.get(accountId);
      if (account?.kind !== 'team') return false;
      account.approvalRequired = required;
      return true;
    },
    async addMembership(membership: Membership) {
      store.insertUnique(
        t().memberships,
        memberKey(membership.accountId, membership.userId),
        membership,
        'membership',
      );
    },
    async upsertMembership(membership: Membership) {
      const key = memberKey(membership.accountId, membership.userId);
      const existing = t().memberships.get(key);
      t().memberships.set(
        key,
        copy(existing ? { ...existing, role: membership.role } : membership),
      );
    },
    async removeMembership(accountId, userId) {
      return t().memberships.delete(memberKey(accountId, userId));
    },
    async findMembership(accountId, userId) {
      return copy(t().memberships.get(memberKey(accountId, userId)) ?? null);
    },
    async listMemberships(accountId) {
      return copy(
        [...t().memberships.values()].filter((m) => m.accountId === accountId).sort(byCreatedAt),
      );
    },
    async listTeamsOfUser(userId) {
      const teams: Array<{ account: Account; role: Role }> = [];
      for (const membership of t().memberships.values()) {
        const account = t().accounts.get(membership.accountId);
        if (membership.userId === userId && account?.kind === 'team') {
          teams.push({ account, role: membership.role });
        }
      }
      return copy(teams.sort((a, b) => byCreatedAt(a.account, b.account)));
    },
    async countUsers() {
      return t().users.size;
    },
    async countTeamsOwnedBy(userId) {
      return [...t().memberships.values()].filter(
        (m) =>
          m.userId === userId &&
          m.role === 'owner' &&
          t().accounts.get(m.accountId)?.kind === 'team',
      ).length;
    },
  };
}

export function memoryApiKeyRepository(store: MemoryStore): ApiKeyRepository {
  const keys = () => store.tables.apiKeys;
  return {
    async insert(key) {
      if ([...keys().values()].some((k) => k.keyHash === key.keyHash)) {
        throw new ConstraintError('duplicate API key hash');
      }
      store.insertUnique(keys(), key.id, key, 'API key');
    },
    async findById(id) {
      return copy(keys().get(id) ?? null);
    },
    async findByHash(keyHash) {
      return copy([...keys().values()].find((k) => k.keyHash === keyHash) ?? null);
    },
    async listByAccount(accountId) {
      return copy([...keys().values()].filter((k) => k.accountId === accountId).sort(byCreatedAt));
    },
    async countByAccount(accountId) {
      return [...keys().values()].filter((k) => k.accountId === accountId).length;
    },
    async delete(id) {
      return keys().delete(id);
    },
    async touchLastUsed(id, at) {
      const key = keys().get(id);
      if (key) key.lastUsedAt = new Date(at);
    },
  };
}
