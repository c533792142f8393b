/**
 * Contract of SocialAccountRepository (connections). Tokens are opaque ciphertext strings to
 * the repository: stored and returned byte for byte.
 *
 *   import { describeSocialAccountRepositoryContract } from '@social-publisher/domain/contracts/storage-social-accounts';
 */
import { describe, expect, it } from 'vitest';
import {
  ancient,
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
      // Counted whatever their status.
      expect(await connections().countByAccount(user.id)).toBe(2);
      expect(await connections().countByAccount(other.id)).toBe(1);
      expect(await connections().countByAccount(newId())).toBe(0);
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

    it('an expired connection (status set by the test kit) is no longer found as active', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id, { platform: 'linkedin' });
      await connections().insert(connection);
      const at = nextTime();
      await storage().testing.setConnectionStatus(connection.id, 'expired', at);
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

    it('stores scopes and the sandbox flag', async () => {
      const user = await seedUser(storage().repos);
      const sandbox = makeSocialAccount(user.id, { sandbox: true, scopes: [] });
      const scoped = makeSocialAccount(user.id, { scopes: ['a.read', 'b.write'] });
      for (const connection of [sandbox, scoped]) await connections().insert(connection);
      expect(await connections().findById(sandbox.id)).toEqual(sandbox);
      expect(await connections().findById(scoped.id)).toEqual(scoped);
    });

    it('finds a connection by its platform account, for reconnects, and renews it', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id, { externalId: 'same', status: 'expired' });
      const elsewhere = makeSocialAccount(other.id, { externalId: 'same' });
      for (const c of [connection, elsewhere]) await connections().insert(c);
      expect(await connections().findByExternalId(user.id, 'tiktok', 'same')).toEqual(connection);
      expect(await connections().findByExternalId(user.id, 'youtube', 'same')).toBeNull();
      expect(await connections().findByExternalId(user.id, 'tiktok', 'other')).toBeNull();
      const at = nextTime();
      const fields = {
        displayName: 'Renewed',
        accessTokenCiphertext: 'new-access',
        refreshTokenCiphertext: null,
        tokenExpiresAt: plus(at, 3_600_000),
        scopes: ['x'],
      };
      await connections().reconnect(connection.id, fields, at);
      expect(await connections().findById(connection.id)).toEqual({
        ...connection,
        ...fields,
        status: 'active',
        updatedAt: at,
      });
      expect(await connections().findById(elsewhere.id)).toEqual(elsewhere);
    });

    it('markExpired: active -> expired once', async () => {
      const user = await seedUser(storage().repos);
      const connection = makeSocialAccount(user.id);
      await connections().insert(connection);
      const at = nextTime();
      expect(await connections().markExpired(connection.id, at)).toBe(true);
      expect(await connections().markExpired(connection.id, at)).toBe(false);
      expect(await connections().markExpired(newId(), at)).toBe(false);
      expect(await connections().findById(connection.id)).toMatchObject({
        status: 'expired',
        updatedAt: at,
      });
    });

    it('claimExpiring: due, active, real connections once per lease, soonest first', async () => {
      const user = await seedUser(storage().repos);
      // 1971 times: no other test's connection expires that early.
      const make = (seconds: number, overrides = {}) =>
        makeSocialAccount(user.id, { tokenExpiresAt: ancient(seconds), ...overrides });
      const later = make(30);
      const sooner = make(20);
      const notDue = make(500);
      const sandbox = make(10, { sandbox: true });
      const expired = make(10, { status: 'expired' });
      const noExpiry = makeSocialAccount(user.id, { tokenExpiresAt: null });
      for (const c of [later, sooner, notDue, sandbox, expired, noExpiry]) {
        await connections().insert(c);
      }
      const mine = (claimed: Array<{ id: string }>) =>
        claimed
          .map((c) => c.id)
          .filter((id) => [later, sooner, notDue].some((c) => c.id === id))
          .sort();
      const cutoff = ancient(100);
      // At 0, a limit of 1 takes the soonest expiry, held until 60.
      const one = await connections().claimExpiring(cutoff, ancient(60), ancient(0), 1);
      expect(one.map((c) => c.id)).toEqual([sooner.id]);
      expect(one[0]).toEqual(sooner);
      // At 10: sooner is held; later is claimed, held until 70.
      expect(
        mine(await connections().claimExpiring(cutoff, ancient(70), ancient(10), 1_000)),
      ).toEqual([later.id]);
      // At 65: sooner's lease ran out, later's did not.
      expect(
        mine(await connections().claimExpiring(cutoff, ancient(90), ancient(65), 1_000)),
      ).toEqual([sooner.id]);
      // At 95 both are free again; notDue never is (after the cutoff).
      expect(
        mine(await connections().claimExpiring(cutoff, ancient(120), ancient(95), 1_000)),
      ).toEqual([sooner.id, later.id].sort());
    });

    it('claimExpiring: renewed tokens end the lease', async () => {
      const user = await seedUser(storage().repos);
      const due = makeSocialAccount(user.id, { tokenExpiresAt: ancient(3_000) });
      await connections().insert(due);
      const claim = (now: number) =>
        connections()
          .claimExpiring(ancient(3_100), ancient(now + 60), ancient(now), 1_000)
          .then((claimed) => claimed.filter((c) => c.id === due.id).length);
      expect(await claim(2_900)).toBe(1);
      expect(await claim(2_901)).toBe(0);
      await connections().updateTokens(
        due.id,
        {
          accessTokenCiphertext: 'a2',
          refreshTokenCiphertext: null,
          tokenExpiresAt: ancient(3_050),
        },
        nextTime(),
      );
      expect(await claim(2_902)).toBe(1);
    });

    it('claimExpiring: concurrent claimers never get the same connection', async () => {
      const user = await seedUser(storage().repos);
      const due = Array.from({ length: 6 }, (_, i) =>
        makeSocialAccount(user.id, { tokenExpiresAt: ancient(1_000 + i) }),
      );
      for (const c of due) await connections().insert(c);
      const ids = new Set(due.map((c) => c.id));
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          connections().claimExpiring(ancient(2_000), ancient(1_500), ancient(900), 1_000),
        ),
      );
      const claimed = results.flatMap((r) => r.map((c) => c.id).filter((id) => ids.has(id)));
      expect(claimed.sort()).toEqual([...ids].sort());
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
