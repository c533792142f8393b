import type { OAuthStateRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

export function memoryOAuthStateRepository(store: MemoryStore): OAuthStateRepository {
  const rows = () => store.tables.oauthStates;
  return {
    async insert(state) {
      store.insertUnique(rows(), state.stateHash, state, 'oauth state');
    },
    async take(stateHash) {
      const state = rows().get(stateHash) ?? null;
      rows().delete(stateHash);
      return copy(state);
    },
    async deleteExpired(before) {
      let removed = 0;
      for (const [hash, state] of rows()) {
        if (state.expiresAt.getTime() < before.getTime()) {
          rows().delete(hash);
          removed += 1;
        }
      }
      return removed;
    },
  };
}
