import { describe, expect, it } from 'vitest';
import {
  addMember,
  authenticateApiKey,
  authenticateSubject,
  canAccessAccount,
  createApiKey,
  generateApiKey,
  removeMember,
  resolveContext,
} from '../src/index.ts';
import { createTestDeps, seedUser, seedWorkspace } from '../src/testing/index.ts';
import { errorOf, UNKNOWN_ID, unwrap } from './support.ts';

describe('authenticateApiKey', () => {
  it('finds the key by hash and records its use', async () => {
    const deps = createTestDeps();
    const { rawKey, user, apiKey } = await seedUser(deps, 'a@example.com');
    deps.clock.advance(5_000);
    expect(unwrap(await authenticateApiKey(deps, rawKey))).toEqual({
      userId: user.id,
      apiKeyId: apiKey.id,
      keyAccountId: user.id,
    });
    expect((await deps.repos.apiKeys.findById(apiKey.id))?.lastUsedAt).toEqual(deps.clock.now());
  });

  it('records the use at most once a minute', async () => {
    const deps = createTestDeps();
    const { rawKey, apiKey } = await seedUser(deps);
    unwrap(await authenticateApiKey(deps, rawKey));
    const first = deps.clock.now();
    deps.clock.advance(59_999);
    unwrap(await authenticateApiKey(deps, rawKey));
    expect((await deps.repos.apiKeys.findById(apiKey.id))?.lastUsedAt).toEqual(first);
    deps.clock.advance(1);
    unwrap(await authenticateApiKey(deps, rawKey));
    expect((await deps.repos.apiKeys.findById(apiKey.id))?.lastUsedAt).toEqual(deps.clock.now());
  });

  it("a team key carries its creator's role, read at authentication", async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    expect(unwrap(await authenticateApiKey(deps, team.rawTeamKey))).toEqual({
      ...team.teamKeyActor,
      keyRole: 'owner',
    });
  });

  it('a team key stops at once when its creator leaves the team: unauthorized', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'admin' }),
    );
    const bobCtx = unwrap(await resolveContext(deps, bob.actor, team.account.id));
    const bobsKey = unwrap(await createApiKey(deps, bobCtx, { name: 'bob ci' }));
    expect(unwrap(await authenticateApiKey(deps, bobsKey.rawKey)).keyRole).toBe('admin');
    unwrap(await removeMember(deps, alice.actor, team.account.id, bob.user.id));
    expect(errorOf(await authenticateApiKey(deps, bobsKey.rawKey))).toEqual({
      code: 'unauthorized',
      message: "this API key's creator is no longer a member of its workspace",
    });
    // Coming back restores the key: it acts for its creator as they are now.
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'admin' }),
    );
    expect(unwrap(await authenticateApiKey(deps, bobsKey.rawKey)).keyRole).toBe('admin');
  });

  it('a team key of a creator demoted to member is forbidden; its personal keys are not', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'admin' }),
    );
    const bobCtx = unwrap(await resolveContext(deps, bob.actor, team.account.id));
    const bobsKey = unwrap(await createApiKey(deps, bobCtx, { name: 'bob ci' }));
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'member' }),
    );
    expect(errorOf(await authenticateApiKey(deps, bobsKey.rawKey)).code).toBe('forbidden');
    expect(unwrap(await authenticateApiKey(deps, bob.rawKey)).userId).toBe(bob.user.id);
    expect(unwrap(await resolveContext(deps, bob.actor, team.account.id)).role).toBe('member');
  });

  it('rejects unknown and malformed keys', async () => {
    const deps = createTestDeps();
    expect(errorOf(await authenticateApiKey(deps, generateApiKey())).code).toBe('unauthorized');
    expect(errorOf(await authenticateApiKey(deps, 'Bearer nope')).code).toBe('unauthorized');
  });
});

describe('authenticateSubject', () => {
  it('creates a user with a personal account the first time, then finds it', async () => {
    const deps = createTestDeps();
    const first = await authenticateSubject(deps, 'auth0|123');
    expect(first).toEqual({ userId: first.userId, apiKeyId: null, keyAccountId: null });
    expect(await deps.repos.accounts.findAccountById(first.userId)).toMatchObject({
      kind: 'personal',
    });
    expect(await authenticateSubject(deps, 'auth0|123')).toEqual(first);
    expect(await deps.repos.accounts.countUsers()).toBe(1);
  });

  it('two first requests racing end up as the same user', async () => {
    const deps = createTestDeps();
    const [a, b] = await Promise.all([
      authenticateSubject(deps, 'sub-x'),
      authenticateSubject(deps, 'sub-x'),
    ]);
    expect(a.userId).toBe(b.userId);
    expect(await deps.repos.accounts.countUsers()).toBe(1);
  });

  it('rethrows storage failures', async () => {
    const deps = createTestDeps();
    deps.store.failNext('accounts.createUser', new Error('db down'));
    await expect(authenticateSubject(deps, 'sub-y')).rejects.toThrow('db down');
    expect(await deps.repos.accounts.countUsers()).toBe(0);
  });
});

describe('resolveContext', () => {
  it('a personal key acts in the personal account, or in a team it belongs to', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    expect(unwrap(await resolveContext(deps, alice.actor))).toEqual(alice.ctx);
    expect(unwrap(await resolveContext(deps, alice.actor, alice.user.id))).toEqual(alice.ctx);
    expect(unwrap(await resolveContext(deps, alice.actor, team.account.id))).toEqual({
      accountId: team.account.id,
      userId: alice.user.id,
      role: 'owner',
      apiKeyId: alice.apiKey.id,
    });
  });

  it('a team the caller is not a member of is forbidden, existing or not', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    expect(errorOf(await resolveContext(deps, bob.actor, team.account.id)).code).toBe('forbidden');
    expect(errorOf(await resolveContext(deps, bob.actor, UNKNOWN_ID)).code).toBe('forbidden');
    expect(errorOf(await resolveContext(deps, bob.actor, 'not-a-uuid')).code).toBe('forbidden');
    expect(errorOf(await resolveContext(deps, bob.actor, alice.user.id)).code).toBe('forbidden');
  });

  it('a team key acts in its team only, with its creator role, and not once they left', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    const other = await seedWorkspace(deps, alice, 'other');
    expect(unwrap(await resolveContext(deps, team.teamKeyActor))).toMatchObject({
      accountId: team.account.id,
      role: 'owner',
    });
    expect(unwrap(await resolveContext(deps, team.teamKeyActor, team.account.id)).accountId).toBe(
      team.account.id,
    );
    expect(errorOf(await resolveContext(deps, team.teamKeyActor, other.account.id)).code).toBe(
      'forbidden',
    );
    expect(errorOf(await resolveContext(deps, team.teamKeyActor, alice.user.id)).code).toBe(
      'forbidden',
    );
    await deps.repos.accounts.removeMembership(team.account.id, alice.user.id);
    expect(errorOf(await resolveContext(deps, team.teamKeyActor)).code).toBe('unauthorized');
    expect(errorOf(await resolveContext(deps, team.teamKeyActor, team.account.id)).code).toBe(
      'unauthorized',
    );
    expect(await canAccessAccount(deps, team.teamKeyActor, team.account.id)).toBeNull();
  });

  it('a JWT caller acts like a personal key', async () => {
    const deps = createTestDeps();
    const actor = await authenticateSubject(deps, 'sub');
    expect(unwrap(await resolveContext(deps, actor))).toEqual({
      accountId: actor.userId,
      userId: actor.userId,
      role: 'owner',
      apiKeyId: null,
    });
  });
});

describe('canAccessAccount', () => {
  it('reaches the personal account and member teams, nothing else', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    expect(await canAccessAccount(deps, alice.actor, alice.user.id)).toBe('owner');
    expect(await canAccessAccount(deps, alice.actor, team.account.id)).toBe('owner');
    expect(await canAccessAccount(deps, alice.actor, bob.user.id)).toBeNull();
    expect(await canAccessAccount(deps, bob.actor, team.account.id)).toBeNull();
    expect(await canAccessAccount(deps, bob.actor, 'garbage')).toBeNull();
    expect(await canAccessAccount(deps, team.teamKeyActor, team.account.id)).toBe('owner');
    expect(await canAccessAccount(deps, team.teamKeyActor, alice.user.id)).toBeNull();
  });
});
