/**
 * Contract of UnitOfWork: `run` commits what `work` did when it resolves, and leaves no trace
 * of it when it throws (the error reaches the caller unchanged).
 *
 *   import { describeUnitOfWorkContract } from '@social-publisher/domain/contracts/storage-unit-of-work';
 */
import { describe, expect, it } from 'vitest';
import {
  makeApiKey,
  makePost,
  makeUser,
  makeWebhook,
  type StorageSetup,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

export function describeUnitOfWorkContract(name: string, setup: StorageSetup): void {
  describe(`${name}: UnitOfWork`, () => {
    const storage = useStorage(setup);

    it('commits the work and returns its value', async () => {
      const user = makeUser();
      const value = await storage().uow.run(async (repos) => {
        await repos.accounts.createUser(user);
        await repos.accounts.createAccount({
          id: user.id,
          kind: 'personal',
          name: 'personal',
          approvalRequired: false,
          createdAt: user.createdAt,
        });
        return { created: user.id };
      });
      expect(value).toEqual({ created: user.id });
      expect(await storage().repos.accounts.findUserById(user.id)).toEqual(user);
      expect(await storage().repos.accounts.findAccountById(user.id)).not.toBeNull();
    });

    it('sees its own writes before it commits', async () => {
      const user = makeUser();
      const seen = await storage().uow.run(async (repos) => {
        await repos.accounts.createUser(user);
        return repos.accounts.findUserById(user.id);
      });
      expect(seen).toEqual(user);
    });

    it('rolls back every write of every repository when the work throws', async () => {
      const owner = await seedUser(storage().repos);
      const user = makeUser();
      const key = makeApiKey(owner.id, owner.id);
      const post = makePost(owner.id, owner.id, { platforms: ['tiktok', 'youtube'] });
      const webhook = makeWebhook(owner.id, owner.id);
      const failure = new Error('boom');
      await expect(
        storage().uow.run(async (repos) => {
          await repos.accounts.createUser(user);
          await repos.apiKeys.insert(key);
          await repos.posts.insert(post);
          await repos.webhooks.insert(webhook);
          await repos.accounts.upsertMembership({
            accountId: owner.id,
            userId: owner.id,
            role: 'owner',
            createdAt: owner.createdAt,
          });
          throw failure;
        }),
      ).rejects.toBe(failure);
      const { repos } = storage();
      expect(await repos.accounts.findUserById(user.id)).toBeNull();
      expect(await repos.apiKeys.findById(key.id)).toBeNull();
      expect(await repos.apiKeys.findByHash(key.keyHash)).toBeNull();
      expect(await repos.posts.findById(post.id)).toBeNull();
      expect(await repos.posts.listByCreator(owner.id, [owner.id])).toEqual([]);
      expect(await repos.webhooks.findById(webhook.id)).toBeNull();
      expect(await repos.accounts.findMembership(owner.id, owner.id)).toBeNull();
    });

    it('rolls back updates and deletes too', async () => {
      const owner = await seedUser(storage().repos);
      const key = makeApiKey(owner.id, owner.id);
      await storage().repos.apiKeys.insert(key);
      const post = makePost(owner.id, owner.id);
      await storage().repos.posts.insert(post);
      await expect(
        storage().uow.run(async (repos) => {
          await repos.posts.transitionStatus(post.id, ['queued'], 'cancelled', post.createdAt);
          await repos.posts.cancelPendingTargets(post.id, post.createdAt);
          await repos.apiKeys.delete(key.id);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await storage().repos.posts.findById(post.id)).toEqual(post);
      expect(await storage().repos.apiKeys.findById(key.id)).toEqual(key);
    });

    it('a failed unit of work does not affect the next one', async () => {
      const user = makeUser();
      await expect(
        storage().uow.run(async (repos) => {
          await repos.accounts.createUser(user);
          throw new Error('first fails');
        }),
      ).rejects.toThrow('first fails');
      await storage().uow.run((repos) => repos.accounts.createUser(user));
      expect(await storage().repos.accounts.findUserById(user.id)).toEqual(user);
    });
  });
}
