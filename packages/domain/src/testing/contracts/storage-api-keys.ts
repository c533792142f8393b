/**
 * Contract of ApiKeyRepository. Only the SHA-256 hash of a key is ever stored or looked up.
 *
 *   import { describeApiKeyRepositoryContract } from '@social-publisher/domain/contracts/storage-api-keys';
 */
import { describe, expect, it } from 'vitest';
import {
  byId,
  makeApiKey,
  newId,
  nextTime,
  type StorageSetup,
  seedTeam,
  seedUser,
  sha256Hex,
  useStorage,
} from './storage-fixtures.ts';

export function describeApiKeyRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: ApiKeyRepository`, () => {
    const storage = useStorage(setup);
    const apiKeys = () => storage().repos.apiKeys;

    it('stores a key and finds it by id and by hash', async () => {
      const user = await seedUser(storage().repos);
      const key = makeApiKey(user.id, user.id, { name: 'CI deploy' });
      await apiKeys().insert(key);
      expect(await apiKeys().findById(key.id)).toEqual(key);
      expect(await apiKeys().findByHash(key.keyHash)).toEqual(key);
    });

    it('returns null for an unknown id or hash', async () => {
      expect(await apiKeys().findById(newId())).toBeNull();
      expect(await apiKeys().findByHash(sha256Hex(`unknown-${newId()}`))).toBeNull();
    });

    it('lists and counts the keys of one account only', async () => {
      const user = await seedUser(storage().repos);
      const team = await seedTeam(storage().repos, user.id);
      const personalKeys = [makeApiKey(user.id, user.id), makeApiKey(user.id, user.id)];
      const teamKey = makeApiKey(team.id, user.id);
      for (const key of [...personalKeys, teamKey]) await apiKeys().insert(key);

      expect(byId(await apiKeys().listByAccount(user.id))).toEqual(byId(personalKeys));
      expect(await apiKeys().listByAccount(team.id)).toEqual([teamKey]);
      expect(await apiKeys().countByAccount(user.id)).toBe(2);
      expect(await apiKeys().countByAccount(team.id)).toBe(1);
      expect(await apiKeys().listByAccount(newId())).toEqual([]);
      expect(await apiKeys().countByAccount(newId())).toBe(0);
    });

    it('counts inside a unit of work, including the keys inserted in it', async () => {
      const user = await seedUser(storage().repos);
      await apiKeys().insert(makeApiKey(user.id, user.id));
      const counted = await storage().uow.run(async (repos) => {
        const before = await repos.apiKeys.countByAccount(user.id);
        await repos.apiKeys.insert(makeApiKey(user.id, user.id));
        return [before, await repos.apiKeys.countByAccount(user.id)];
      });
      expect(counted).toEqual([1, 2]);
    });

    it('deletes a key once; it can no longer be found', async () => {
      const user = await seedUser(storage().repos);
      const key = makeApiKey(user.id, user.id);
      await apiKeys().insert(key);
      expect(await apiKeys().delete(key.id)).toBe(true);
      expect(await apiKeys().findById(key.id)).toBeNull();
      expect(await apiKeys().findByHash(key.keyHash)).toBeNull();
      expect(await apiKeys().delete(key.id)).toBe(false);
      expect(await apiKeys().countByAccount(user.id)).toBe(0);
    });

    it('records the last use', async () => {
      const user = await seedUser(storage().repos);
      const key = makeApiKey(user.id, user.id);
      await apiKeys().insert(key);
      const first = nextTime();
      await apiKeys().touchLastUsed(key.id, first);
      expect((await apiKeys().findById(key.id))?.lastUsedAt).toEqual(first);
      const second = nextTime();
      await apiKeys().touchLastUsed(key.id, second);
      expect(await apiKeys().findByHash(key.keyHash)).toEqual({ ...key, lastUsedAt: second });
    });

    it('returns copies', async () => {
      const user = await seedUser(storage().repos);
      const key = makeApiKey(user.id, user.id);
      await apiKeys().insert(key);
      const stored = { ...key };
      key.name = 'mutated after insert';
      const found = await apiKeys().findById(stored.id);
      expect(found).toEqual(stored);
      if (found) found.name = 'mutated after read';
      expect(await apiKeys().findById(stored.id)).toEqual(stored);
    });
  });
}
