import { describe, expect, it } from 'vitest';
import {
  addMember,
  countUsers,
  createUser,
  createWorkspace,
  ensureUserWithKey,
  generateApiKey,
  hashApiKey,
  listWorkspaces,
  removeMember,
} from '../src/index.ts';
import { createTestDeps, seedUser, seedWorkspace } from '../src/testing/index.ts';
import { errorOf, UNKNOWN_ID, unwrap } from './support.ts';

describe('createUser', () => {
  it('creates a user, its personal account and a first key named default', async () => {
    const deps = createTestDeps();
    const { user, apiKey, rawKey } = unwrap(
      await createUser(deps, { email: ' Alice@Example.com ' }),
    );
    expect(user.email).toBe('alice@example.com');
    expect(await deps.repos.accounts.findAccountById(user.id)).toEqual({
      id: user.id,
      kind: 'personal',
      name: 'alice@example.com',
      approvalRequired: false,
      createdAt: user.createdAt,
    });
    expect(apiKey).toMatchObject({ name: 'default', accountId: user.id, createdBy: user.id });
    expect(apiKey.keyHash).toBe(hashApiKey(rawKey));
    expect(await countUsers(deps)).toBe(1);
  });

  it('refuses a duplicate email and a malformed one', async () => {
    const deps = createTestDeps();
    unwrap(await createUser(deps, { email: 'a@example.com' }));
    expect(errorOf(await createUser(deps, { email: 'A@example.com' })).code).toBe('conflict');
    expect(errorOf(await createUser(deps, { email: 'nope' })).code).toBe('validation_failed');
    expect(await countUsers(deps)).toBe(1);
  });

  it('allows users without email', async () => {
    const deps = createTestDeps();
    const { user } = unwrap(await createUser(deps, {}));
    expect((await deps.repos.accounts.findAccountById(user.id))?.name).toBe('personal');
  });
});

describe('ensureUserWithKey', () => {
  it('creates a user owning exactly that key once, then finds it', async () => {
    const deps = createTestDeps();
    const raw = generateApiKey();
    const first = await ensureUserWithKey(deps, raw);
    expect(first.created).toBe(true);
    expect(await ensureUserWithKey(deps, raw)).toEqual({ userId: first.userId, created: false });
    expect((await deps.repos.apiKeys.findByHash(hashApiKey(raw)))?.createdBy).toBe(first.userId);
  });

  it('concurrent starts agree on one user', async () => {
    const deps = createTestDeps();
    const raw = generateApiKey();
    const results = await Promise.all([ensureUserWithKey(deps, raw), ensureUserWithKey(deps, raw)]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    expect(results[0]?.userId).toBe(results[1]?.userId);
    expect(await countUsers(deps)).toBe(1);
  });

  it('throws on a malformed key and on storage failure', async () => {
    const deps = createTestDeps();
    await expect(ensureUserWithKey(deps, 'sp_short')).rejects.toThrow(/BOOTSTRAP_API_KEY/);
    deps.store.failNext('apiKeys.insert', new Error('db down'));
    await expect(ensureUserWithKey(deps, generateApiKey())).rejects.toThrow('db down');
    expect(await countUsers(deps)).toBe(0);
  });
});

describe('workspaces', () => {
  it('the creator becomes owner; listed with roles', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = unwrap(await createWorkspace(deps, alice.actor, { name: '  Marketing ' }));
    expect(team).toMatchObject({ kind: 'team', name: 'Marketing' });
    expect(await listWorkspaces(deps, alice.actor)).toEqual([{ account: team, role: 'owner' }]);
    expect(errorOf(await createWorkspace(deps, alice.actor, { name: '' })).code).toBe(
      'validation_failed',
    );
  });

  it('a team key lists only its own team', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice, 'one');
    await seedWorkspace(deps, alice, 'two');
    expect((await listWorkspaces(deps, alice.actor)).length).toBe(2);
    expect((await listWorkspaces(deps, team.teamKeyActor)).map((t) => t.account.id)).toEqual([
      team.account.id,
    ]);
  });

  it('a team key creates no workspace (403, nothing stored); its creator still can', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    const refused = errorOf(await createWorkspace(deps, team.teamKeyActor, { name: 'another' }));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toMatch(/team API key/);
    expect((await listWorkspaces(deps, alice.actor)).map((t) => t.account.id)).toEqual([
      team.account.id,
    ]);
    expect(unwrap(await createWorkspace(deps, alice.actor, { name: 'another' })).name).toBe(
      'another',
    );
  });

  it('owners and admins add members; members cannot; outsiders are forbidden', async () => {
    const deps = createTestDeps();
    const [alice, bob, carol, dave] = [
      await seedUser(deps),
      await seedUser(deps),
      await seedUser(deps),
      await seedUser(deps),
    ];
    const { account } = await seedWorkspace(deps, alice);
    const added = unwrap(
      await addMember(deps, alice.actor, account.id, { userId: bob.user.id, role: 'admin' }),
    );
    expect(added).toMatchObject({ accountId: account.id, userId: bob.user.id, role: 'admin' });
    unwrap(await addMember(deps, bob.actor, account.id, { userId: carol.user.id, role: 'member' }));
    expect(
      errorOf(
        await addMember(deps, carol.actor, account.id, { userId: dave.user.id, role: 'member' }),
      ).code,
    ).toBe('forbidden');
    expect(
      errorOf(
        await addMember(deps, dave.actor, account.id, { userId: dave.user.id, role: 'member' }),
      ).code,
    ).toBe('forbidden');
    expect(
      errorOf(
        await addMember(deps, dave.actor, UNKNOWN_ID, { userId: dave.user.id, role: 'member' }),
      ).code,
    ).toBe('forbidden');
  });

  it('validates the member and only owners grant or take the owner role', async () => {
    const deps = createTestDeps();
    const [alice, bob, carol] = [await seedUser(deps), await seedUser(deps), await seedUser(deps)];
    const { account } = await seedWorkspace(deps, alice);
    unwrap(await addMember(deps, alice.actor, account.id, { userId: bob.user.id, role: 'admin' }));
    const unknown = errorOf(
      await addMember(deps, alice.actor, account.id, { userId: UNKNOWN_ID, role: 'member' }),
    );
    expect(unknown).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'user_id', message: 'no such user' }],
    });
    expect(
      errorOf(await addMember(deps, alice.actor, account.id, { userId: 'x', role: 'x' })).code,
    ).toBe('validation_failed');
    expect(
      errorOf(
        await addMember(deps, bob.actor, account.id, { userId: carol.user.id, role: 'owner' }),
      ).code,
    ).toBe('forbidden');
    expect(
      errorOf(
        await addMember(deps, bob.actor, account.id, { userId: alice.user.id, role: 'member' }),
      ).code,
    ).toBe('forbidden');
    // the only owner cannot demote themself
    expect(
      errorOf(
        await addMember(deps, alice.actor, account.id, { userId: alice.user.id, role: 'admin' }),
      ).code,
    ).toBe('conflict');
    unwrap(await addMember(deps, alice.actor, account.id, { userId: bob.user.id, role: 'owner' }));
    const demoted = unwrap(
      await addMember(deps, bob.actor, account.id, { userId: alice.user.id, role: 'member' }),
    );
    expect(demoted.role).toBe('member');
  });

  it('a personal account has no members', async () => {
    const deps = createTestDeps();
    const [alice, bob] = [await seedUser(deps), await seedUser(deps)];
    expect(
      errorOf(
        await addMember(deps, alice.actor, alice.user.id, { userId: bob.user.id, role: 'member' }),
      ),
    ).toMatchObject({
      code: 'forbidden',
      message: 'a personal account has no members',
    });
  });

  it('removes members; members may leave; the last owner stays', async () => {
    const deps = createTestDeps();
    const [alice, bob, carol] = [await seedUser(deps), await seedUser(deps), await seedUser(deps)];
    const { account } = await seedWorkspace(deps, alice);
    unwrap(await addMember(deps, alice.actor, account.id, { userId: bob.user.id, role: 'member' }));
    unwrap(
      await addMember(deps, alice.actor, account.id, { userId: carol.user.id, role: 'admin' }),
    );
    expect(errorOf(await removeMember(deps, bob.actor, account.id, carol.user.id)).code).toBe(
      'forbidden',
    );
    expect(errorOf(await removeMember(deps, carol.actor, account.id, alice.user.id)).code).toBe(
      'forbidden',
    );
    expect(errorOf(await removeMember(deps, alice.actor, account.id, UNKNOWN_ID)).code).toBe(
      'not_found',
    );
    expect(errorOf(await removeMember(deps, alice.actor, account.id, alice.user.id)).code).toBe(
      'conflict',
    );
    unwrap(await removeMember(deps, bob.actor, account.id, bob.user.id));
    unwrap(await removeMember(deps, carol.actor, account.id, carol.user.id));
    expect(await deps.repos.accounts.listMemberships(account.id)).toHaveLength(1);
    expect(errorOf(await removeMember(deps, bob.actor, account.id, bob.user.id)).code).toBe(
      'forbidden',
    );
  });
});
