import type { PlatformAppRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

export function memoryPlatformAppRepository(store: MemoryStore): PlatformAppRepository {
  const rows = () => store.tables.platformApps;
  const keyOf = (platform: string, instance: string) => `${platform}/${instance}`;
  return {
    async find(platform, instance) {
      return copy(rows().get(keyOf(platform, instance)) ?? null);
    },
    async keep(app) {
      const key = keyOf(app.platform, app.instance);
      // Like INSERT ... ON CONFLICT DO NOTHING: the first app stored for the instance stays.
      const kept = rows().get(key);
      if (kept) return copy(kept);
      rows().set(key, copy(app));
      return copy(app);
    },
  };
}
