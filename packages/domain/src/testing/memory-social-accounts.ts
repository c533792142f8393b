import type { SocialAccountRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

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
      Object.assign(connection, copy(tokens), { updatedAt: new Date(at) });
    },
    async setStatus(id, status, at) {
      const connection = rows().get(id);
      if (!connection) return;
      connection.status = status;
      connection.updatedAt = new Date(at);
    },
    async delete(id) {
      return rows().delete(id);
    },
  };
}
