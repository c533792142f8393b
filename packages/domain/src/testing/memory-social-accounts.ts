import type { ConnectionStatus } from '../model.ts';
import type { SocialAccountRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

/** Sets a connection's status as is, for tests (see StorageTesting.setConnectionStatus). */
export function memorySetConnectionStatus(store: MemoryStore) {
  return async (id: string, status: ConnectionStatus, at: Date): Promise<void> => {
    const connection = store.tables.socialAccounts.get(id);
    if (!connection) return;
    connection.status = status;
    connection.updatedAt = new Date(at);
  };
}

export function memorySocialAccountRepository(store: MemoryStore): SocialAccountRepository {
  const rows = () => store.tables.socialAccounts;
  return {
    async insert(connection) {
      store.insertUnique(rows(), connection.id, connection, 'social account');
    },
    async findById(id) {
      return copy(rows().get(id) ?? null);
    },
    async findByIds(ids) {
      const wanted = new Set(ids);
      return copy([...rows().values()].filter((c) => wanted.has(c.id)));
    },
    async listByAccount(accountId) {
      return copy(
        [...rows().values()]
          .filter((c) => c.accountId === accountId)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()),
      );
    },
    async countByAccount(accountId) {
      return [...rows().values()].filter((c) => c.accountId === accountId).length;
    },
    async findActiveByPlatform(accountId, platform) {
      // Most recently created wins; among equal times the later insert wins.
      const matches = [...rows().values()].filter(
        (c) => c.accountId === accountId && c.platform === platform && c.status === 'active',
      );
      const newest = matches.reduce<(typeof matches)[number] | null>(
        (best, c) =>
          best === null || c.createdAt.getTime() >= best.createdAt.getTime() ? c : best,
        null,
      );
      return copy(newest);
    },
    async updateTokens(id, tokens, at) {
      const connection = rows().get(id);
      if (!connection) return;
      store.tables.refreshLeases.delete(id);
      Object.assign(connection, copy(tokens), { updatedAt: new Date(at) });
    },
    async delete(id) {
      store.tables.refreshLeases.delete(id);
      return rows().delete(id);
    },
    async findByExternalId(accountId, platform, externalId) {
      const found = [...rows().values()].find(
        (c) => c.accountId === accountId && c.platform === platform && c.externalId === externalId,
      );
      return copy(found ?? null);
    },
    async reconnect(id, fields, at) {
      const connection = rows().get(id);
      if (!connection) return;
      Object.assign(connection, copy(fields), { status: 'active', updatedAt: new Date(at) });
    },
    async markExpired(id, at) {
      const connection = rows().get(id);
      if (connection?.status !== 'active') return false;
      connection.status = 'expired';
      connection.updatedAt = new Date(at);
      return true;
    },
    async claimExpiring(cutoff, leaseUntil, now, limit) {
      const leases = store.tables.refreshLeases;
      const due = [...rows().values()]
        .filter(
          (c) =>
            c.status === 'active' &&
            !c.sandbox &&
            c.tokenExpiresAt !== null &&
            c.tokenExpiresAt.getTime() < cutoff.getTime() &&
            (leases.get(c.id)?.getTime() ?? 0) < now.getTime(),
        )
        .sort((a, b) => (a.tokenExpiresAt?.getTime() ?? 0) - (b.tokenExpiresAt?.getTime() ?? 0))
        .slice(0, limit);
      for (const connection of due) leases.set(connection.id, new Date(leaseUntil));
      return copy(due);
    },
  };
}
