/**
 * Contract of SocialAccountRepository (connections). Tokens are opaque ciphertext strings to
 * the repository: stored and returned byte for byte.
 *
 *   import { describeSocialAccountRepositoryContract } from '@social-publisher/domain/contracts/storage-social-accounts';
 */
import { describe, expect, it } from 'vitest';
import {
  byId,
  makeSocialAccount,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

export function describeSocialAccountRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: SocialAccountRepository`, () => {
    const storage = useStorage(setup);
    const connections = () => storage().repos.socialAccounts;

    it('stores a connection and finds it by id, ciphertext unchanged', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id, {
        accessTokenCiphertext: 'v1.bm9uY2U.Y2lwaGVy+/=.dGFn',
        refreshTokenCiphertext: null,
        tokenExpiresAt: null,
        displayName: null,
      });
      await connections().insert(connection);
      expect(await connections().findById(connection.id)).toEqual(connection);
      expect(await connections().findById(newId())).toBeNull();
    });

    it('finds the existing connections among many ids in one call', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const first = makeSocialAccount(user.id, { platform: 'tiktok' });
      const second = makeSocialAccount(other.id, { platform: 'youtube' });
      const third = makeSocialAccount(user.id, { platform: 'instagram', status: 'expired' });
      for (const connection of [first, second, third]) await connections().insert(connection);
      const found = await connections().findByIds([
        third.id,
        newId(),
        first.id,
        second.id,
        first.id,
      ]);
      expect(byId(found)).toEqual(byId([first, second, third]));
      expect(await connections().findByIds([])).toEqual([]);
      expect(await connections().findByIds([newId()])).toEqual([]);
    });

    it('lists the connections of one account only', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const mine = [
        makeSocialAccount(user.id, { platform: 'tiktok' }),
        makeSocialAccount(user.id, { platform: 'youtube', status: 'revoked' }),
      ];
      for (const connection of [...mine, makeSocialAccount(other.id)]) {
        await connections().insert(connection);
      }
      expect(byId(await connections().listByAccount(user.id))).toEqual(byId(mine));
      expect(await connections().listByAccount(newId())).toEqual([]);
    });

    it('finds the most recently created active connection of a platform', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const older = makeSocialAccount(user.id, { platform: 'instagram' });
      const newer = makeSocialAccount(user.id, { platform: 'instagram' });
      const newestButRevoked = makeSocialAccount(user.id, {
        platform: 'instagram',
        status: 'revoked',
      });
      const newestButExpired = makeSocialAccount(user.id, {
        platform: 'instagram',
        status: 'expired',
      });
      const otherPlatform = makeSocialAccount(user.id, { platform: 'youtube' });
      const otherAccount = makeSocialAccount(other.id, { platform: 'instagram' });
      // Inserted out of order: the choice is by createdAt, not insertion order.
      for (const connection of [
        newer,
        older,
        newestButRevoked,
        newestButExpired,
        otherPlatform,
        otherAccount,
      ]) {
        await connections().insert(connection);
      }
      expect(await connections().findActiveByPlatform(user.id, 'instagram')).toEqual(newer);
      expect(await connections().findActiveByPlatform(user.id, 'youtube')).toEqual(otherPlatform);
      expect(await connections().findActiveByPlatform(user.id, 'facebook')).toBeNull();
    });

    it('replaces the tokens and their expiry', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id);
      await connections().insert(connection);
      const at = nextTime();
      const tokens = {
        accessTokenCiphertext: 'v1.new.access.token',
        refreshTokenCiphertext: null,
        tokenExpiresAt: plus(at, 7_200_000),
      };
      await connections().updateTokens(connection.id, tokens, at);
      expect(await connections().findById(connection.id)).toEqual({
        ...connection,
        ...tokens,
        updatedAt: at,
      });
    });

    it('changes the status; an expired connection is no longer found as active', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id, { platform: 'linkedin' });
      await connections().insert(connection);
      const at = nextTime();
      await connections().setStatus(connection.id, 'expired', at);
      expect(await connections().findById(connection.id)).toEqual({
        ...connection,
        status: 'expired',
        updatedAt: at,
      });
      expect(await connections().findActiveByPlatform(user.id, 'linkedin')).toBeNull();
    });

    it('deletes a connection once', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id);
      await connections().insert(connection);
      expect(await connections().delete(connection.id)).toBe(true);
      expect(await connections().findById(connection.id)).toBeNull();
      expect(await connections().delete(connection.id)).toBe(false);
    });

    it('deleting a connection keeps the posts published through it, target included', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id);
      await connections().insert(connection);
      const post = await seedPost(storage().repos, {
        userId: user.id,
        socialAccountIds: [connection.id],
      });
      expect(await connections().delete(connection.id)).toBe(true);
      const kept = await storage().repos.posts.findById(post.id);
      expect(kept).toEqual(post);
      expect(kept?.targets[0]?.socialAccountId).toBe(connection.id);
    });

    it('returns copies', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id);
      await connections().insert(connection);
      const stored = { ...connection };
      connection.accessTokenCiphertext = 'mutated after insert';
      const found = await connections().findById(stored.id);
      expect(found).toEqual(stored);
      if (found) found.status = 'revoked';
      expect(await connections().findById(stored.id)).toEqual(stored);
    });
  });
}
