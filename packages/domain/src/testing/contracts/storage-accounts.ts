/**
 * Contract of AccountRepository (users, accounts, memberships). Run it against every adapter:
 *
 *   import { describeAccountRepositoryContract } from '@social-publisher/domain/contracts/storage-accounts';
 *   describeAccountRepositoryContract('pglite', async () => ({ repos, uow, teardown }));
 */
import { describe, expect, it } from 'vitest';
import {
  byId,
  makeAccount,
  makeUser,
  newId,
  nextTime,
  type StorageSetup,
  seedTeam,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

export function describeAccountRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: AccountRepository`, () => {
    const storage = useStorage(setup);
    const accounts = () => storage().repos.accounts;

    it('stores a user and finds it by id, email and subject', async () => {
      const user = makeUser({ externalSubject: `sub|${newId()}` });
      await accounts().createUser(user);
      expect(await accounts().findUserById(user.id)).toEqual(user);
      expect(await accounts().findUserByEmail(user.email ?? '')).toEqual(user);
      expect(await accounts().findUserBySubject(user.externalSubject ?? '')).toEqual(user);
    });

    it('stores a user without email or subject', async () => {
      const user = makeUser({ email: null, externalSubject: null });
      await accounts().createUser(user);
      expect(await accounts().findUserById(user.id)).toEqual(user);
    });

    it('returns null for unknown users', async () => {
      expect(await accounts().findUserById(newId())).toBeNull();
      expect(await accounts().findUserByEmail(`nobody-${newId()}@example.test`)).toBeNull();
      expect(await accounts().findUserBySubject(`sub|${newId()}`)).toBeNull();
    });

    it('returns copies: changing a returned or inserted user changes nothing stored', async () => {
      const user = makeUser();
      await accounts().createUser(user);
      const stored = { ...user };
      user.email = 'changed-after-insert@example.test';
      const found = await accounts().findUserById(user.id);
      expect(found).toEqual(stored);
      if (found) found.email = 'changed-after-read@example.test';
      expect(await accounts().findUserById(user.id)).toEqual(stored);
    });

    it('stores personal and team accounts', async () => {
      const user = await seedUser(storage().repos);
      const personal = await accounts().findAccountById(user.id);
      expect(personal).toEqual({
        id: user.id,
        kind: 'personal',
        name: user.email,
        approvalRequired: false,
        createdAt: user.createdAt,
      });
      const team = makeAccount({ name: 'Growth team' });
      await accounts().createAccount(team);
      expect(await accounts().findAccountById(team.id)).toEqual(team);
      expect(await accounts().findAccountById(newId())).toBeNull();
    });

    it('adds, finds, changes and removes memberships', async () => {
      const owner = await seedUser(storage().repos);
      const member = await seedUser(storage().repos);
      const team = await seedTeam(storage().repos, owner.id);
      const membership = {
        accountId: team.id,
        userId: member.id,
        role: 'member' as const,
        createdAt: nextTime(),
      };
      await accounts().addMembership(membership);
      expect(await accounts().findMembership(team.id, member.id)).toEqual(membership);

      await accounts().upsertMembership({ ...membership, role: 'admin' });
      expect(await accounts().findMembership(team.id, member.id)).toMatchObject({
        accountId: team.id,
        userId: member.id,
        role: 'admin',
      });

      expect(await accounts().removeMembership(team.id, member.id)).toBe(true);
      expect(await accounts().findMembership(team.id, member.id)).toBeNull();
      expect(await accounts().removeMembership(team.id, member.id)).toBe(false);
      expect(await accounts().findMembership(team.id, owner.id)).not.toBeNull();
    });

    it('upsertMembership inserts a membership that does not exist yet', async () => {
      const owner = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const team = await seedTeam(storage().repos, owner.id);
      const membership = {
        accountId: team.id,
        userId: other.id,
        role: 'admin' as const,
        createdAt: nextTime(),
      };
      await accounts().upsertMembership(membership);
      expect(await accounts().findMembership(team.id, other.id)).toEqual(membership);
    });

    it('lists the memberships of a team oldest first', async () => {
      const owner = await seedUser(storage().repos);
      const admin = await seedUser(storage().repos);
      const member = await seedUser(storage().repos);
      const team = await seedTeam(storage().repos, owner.id);
      const other = await seedTeam(storage().repos, admin.id);
      const asMember = {
        accountId: team.id,
        userId: member.id,
        role: 'member' as const,
        createdAt: nextTime(),
      };
      const asAdmin = {
        accountId: team.id,
        userId: admin.id,
        role: 'admin' as const,
        createdAt: nextTime(),
      };
      // Inserted out of order: the listing is ordered by createdAt.
      await accounts().addMembership(asAdmin);
      await accounts().addMembership(asMember);
      expect(await accounts().listMemberships(team.id)).toEqual([
        { accountId: team.id, userId: owner.id, role: 'owner', createdAt: team.createdAt },
        asMember,
        asAdmin,
      ]);
      expect((await accounts().listMemberships(other.id)).map((m) => m.userId)).toEqual([admin.id]);
      expect(await accounts().listMemberships(newId())).toEqual([]);
    });

    it('lists the team accounts of a user with their role, never personal accounts', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const owned = await seedTeam(storage().repos, user.id, { name: 'Owned' });
      const joined = await seedTeam(storage().repos, other.id, { name: 'Joined' });
      await accounts().addMembership({
        accountId: joined.id,
        userId: user.id,
        role: 'member',
        createdAt: nextTime(),
      });
      await seedTeam(storage().repos, other.id, { name: 'Not mine' });

      const teams = await accounts().listTeamsOfUser(user.id);
      expect([...teams].sort((a, b) => (a.account.id < b.account.id ? -1 : 1))).toEqual(
        byId([owned, joined]).map((account) => ({
          account,
          role: account.id === owned.id ? 'owner' : 'member',
        })),
      );
      expect(await accounts().listTeamsOfUser(newId())).toEqual([]);
      // Only the teams owned count (never the personal account, nor a team joined).
      expect(await accounts().countTeamsOwnedBy(user.id)).toBe(1);
      expect(await accounts().countTeamsOwnedBy(other.id)).toBe(2);
      expect(await accounts().countTeamsOwnedBy(newId())).toBe(0);
      const counted = await storage().uow.run(async (repos) => {
        const before = await repos.accounts.countTeamsOwnedBy(user.id);
        await seedTeam(repos, user.id);
        return [before, await repos.accounts.countTeamsOwnedBy(user.id)];
      });
      expect(counted).toEqual([1, 2]);
    });

    it('counts users', async () => {
      const before = await accounts().countUsers();
      await seedUser(storage().repos);
      await seedUser(storage().repos);
      expect(await accounts().countUsers()).toBe(before + 2);
    });
  });
}
