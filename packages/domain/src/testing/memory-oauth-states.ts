import type { OAuthStateRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

export function memoryOAuthStateRepository(store: MemoryStore): OAuthStateRepository {
  const rows = () => store.tables.oauthStates;
  return {
    async insert(state) {
      store.insertUnique(rows(), state.stateHash, state, 'oauth state');
    },
    async find(stateHash) {
      return copy(rows().get(stateHash) ?? null);
    },
    async bindBrowser(stateHash, browserHash) {
      const state = rows().get(stateHash);
      if (!state || state.browserHash !== null) return false;
      rows().set(stateHash, { ...state, browserHash });
      return true;
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
