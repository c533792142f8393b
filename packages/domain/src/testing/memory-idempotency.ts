import type { IdempotencyRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

export function memoryIdempotencyRepository(store: MemoryStore): IdempotencyRepository {
  const rows = () => store.tables.idempotency;
  const keyOf = (scope: string, key: string) => `${scope}/${key}`;
  const live = (record: { expiresAt: Date }, now: Date) =>
    record.expiresAt.getTime() > now.getTime();
  return {
    async find(scope, key, now) {
      const record = rows().get(keyOf(scope, key));
      return record && live(record, now) ? copy(record) : null;
    },
    async putIfAbsent(record) {
      const key = keyOf(record.scope, record.key);
      const existing = rows().get(key);
      // An expired record no longer counts: the new one replaces it.
      if (existing && live(existing, record.createdAt)) return copy(existing);
      rows().set(key, copy(record));
      return copy(record);
    },
    async deleteIfOwned(scope, key, requestHash, responseBody) {
      const record = rows().get(keyOf(scope, key));
      if (!record || record.requestHash !== requestHash || record.responseBody !== responseBody) {
        return false;
      }
      return rows().delete(keyOf(scope, key));
    },
    async deleteExpired(now) {
      let removed = 0;
      for (const [key, record] of rows()) {
        if (!live(record, now)) {
          rows().delete(key);
          removed++;
        }
      }
      return removed;
    },
  };
}
