/**
 * Contract of IdempotencyRepository (stored replies for the HTTP `Idempotency-Key` header).
 * A record is live while `expiresAt` is after the time asked about.
 *
 *   import { describeIdempotencyRepositoryContract } from '@social-publisher/domain/contracts/storage-idempotency';
 */
import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../ports/storage.ts';
import {
  ancient,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  useStorage,
} from './storage-fixtures.ts';

const DAY = 86_400_000;

function makeRecord(overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  const createdAt = overrides.createdAt ?? nextTime();
  return {
    scope: `key:${newId()}:POST /posts`,
    key: `idem-${newId()}`,
    requestHash: 'a'.repeat(64),
    statusCode: 201,
    responseBody: '{"data":{"id":"0190a3c4-0000-7000-8000-000000000000","content":"héllo"}}',
    createdAt,
    expiresAt: plus(createdAt, DAY),
    ...overrides,
  };
}

export function describeIdempotencyRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: IdempotencyRepository`, () => {
    const storage = useStorage(setup);
    const idempotency = () => storage().repos.idempotency;

    it('finds nothing for an unknown key', async () => {
      expect(await idempotency().find(`scope-${newId()}`, 'k', nextTime())).toBeNull();
    });

    it('stores a record once and returns it', async () => {
      const record = makeRecord();
      expect(await idempotency().putIfAbsent(record)).toEqual(record);
      expect(await idempotency().find(record.scope, record.key, record.createdAt)).toEqual(record);
    });

    it('keeps the first live record: a second put returns the first one unchanged', async () => {
      const first = makeRecord();
      await idempotency().putIfAbsent(first);
      const second = {
        ...first,
        requestHash: 'b'.repeat(64),
        statusCode: 400,
        responseBody: '{"error":{}}',
        createdAt: plus(first.createdAt, 1_000),
        expiresAt: plus(first.createdAt, 2 * DAY),
      };
      expect(await idempotency().putIfAbsent(second)).toEqual(first);
      expect(await idempotency().find(first.scope, first.key, second.createdAt)).toEqual(first);
    });

    it('of concurrent puts with the same key exactly one is stored, and all return it', async () => {
      const base = makeRecord();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          idempotency().putIfAbsent({ ...base, responseBody: `{"n":${index}}` }),
        ),
      );
      const stored = await idempotency().find(base.scope, base.key, base.createdAt);
      expect(stored).not.toBeNull();
      for (const result of results) expect(result).toEqual(stored);
    });

    it('keys are scoped: the same key in two scopes are two records', async () => {
      const one = makeRecord();
      const two = makeRecord({ key: one.key, responseBody: '{"other":true}' });
      expect(await idempotency().putIfAbsent(one)).toEqual(one);
      expect(await idempotency().putIfAbsent(two)).toEqual(two);
      expect(await idempotency().find(two.scope, two.key, two.createdAt)).toEqual(two);
    });

    it('an expired record is not found and is replaced by the next put', async () => {
      const old = makeRecord();
      await idempotency().putIfAbsent(old);
      expect(await idempotency().find(old.scope, old.key, old.expiresAt)).toBeNull();
      expect(await idempotency().find(old.scope, old.key, plus(old.expiresAt, 1))).toBeNull();
      const fresh = makeRecord({
        scope: old.scope,
        key: old.key,
        responseBody: '{"fresh":true}',
        createdAt: plus(old.expiresAt, 1_000),
        expiresAt: plus(old.expiresAt, DAY),
      });
      expect(await idempotency().putIfAbsent(fresh)).toEqual(fresh);
      expect(await idempotency().find(old.scope, old.key, fresh.createdAt)).toEqual(fresh);
    });

    it('deleteIfOwned removes a record only for the holder of its hash and body', async () => {
      const record = makeRecord({ statusCode: 102, responseBody: 'lock:owner-a' });
      await idempotency().putIfAbsent(record);
      const { scope, key, requestHash, createdAt } = record;
      expect(await idempotency().deleteIfOwned(scope, key, requestHash, 'lock:owner-b')).toBe(
        false,
      );
      expect(await idempotency().deleteIfOwned(scope, key, 'c'.repeat(64), 'lock:owner-a')).toBe(
        false,
      );
      expect(await idempotency().find(scope, key, createdAt)).toEqual(record);
      expect(await idempotency().deleteIfOwned(scope, key, requestHash, 'lock:owner-a')).toBe(true);
      expect(await idempotency().find(scope, key, createdAt)).toBeNull();
      expect(await idempotency().deleteIfOwned(scope, key, requestHash, 'lock:owner-a')).toBe(
        false,
      );
    });

    it('deletes the expired records and counts them', async () => {
      const expiredA = makeRecord({ createdAt: ancient(0), expiresAt: ancient(10) });
      const expiredB = makeRecord({ createdAt: ancient(0), expiresAt: ancient(100) });
      const live = makeRecord({ createdAt: ancient(0), expiresAt: ancient(101) });
      for (const record of [expiredA, expiredB, live]) await idempotency().putIfAbsent(record);
      expect(await idempotency().deleteExpired(ancient(100))).toBe(2);
      expect(await idempotency().find(live.scope, live.key, ancient(100))).toEqual(live);
      // Gone, not just hidden: a put with the old expiry time stores the new record.
      const again = { ...expiredA, responseBody: '{"again":true}', expiresAt: ancient(200) };
      expect(await idempotency().putIfAbsent(again)).toEqual(again);
      expect(await idempotency().deleteExpired(ancient(100))).toBe(0);
    });
  });
}
