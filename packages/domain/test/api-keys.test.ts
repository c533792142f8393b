import { describe, expect, it } from 'vitest';
import {
  addMember,
  authenticateApiKey,
  createApiKey,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from '../src/index.ts';
import { createTestDeps, seedUser, seedWorkspace } from '../src/testing/index.ts';
import { errorOf, UNKNOWN_ID, unwrap } from './support.ts';

describe('createApiKey', () => {
  it('returns the raw key once and stores only its hash and prefix', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const { key, rawKey } = unwrap(await createApiKey(deps, alice.ctx, { name: '  ci  ' }));
    expect(key).toMatchObject({
      name: 'ci',
      accountId: alice.user.id,
      createdBy: alice.user.id,
      keyHash: hashApiKey(rawKey),
      keyPrefix: rawKey.slice(0, 11),
      lastUsedAt: null,
    });
    expect(JSON.stringify(await deps.repos.apiKeys.findById(key.id))).not.toContain(rawKey);
    expect(unwrap(await authenticateApiKey(deps, rawKey)).apiKeyId).toBe(key.id);
  });

  it('validates the name', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    expect(errorOf(await createApiKey(deps, alice.ctx, { name: 'x'.repeat(101) }))).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'name', message: 'must be at most 100 characters' }],
    });
  });

  it('the 11th key of an account is limit_exceeded', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps); // holds its 'default' key already
    for (let i = 2; i <= 10; i++) unwrap(await createApiKey(deps, alice.ctx, { name: `key ${i}` }));
    const error = errorOf(await createApiKey(deps, alice.ctx, { name: 'eleven' }));
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toMatch(/at most 10/);
    expect(await listApiKeys(deps, alice.ctx)).toHaveLength(10);
  });

  it('team keys are created by owners and admins only', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    const as = (userId: string, role: 'owner' | 'admin' | 'member') => ({
      ...team.ctx,
      userId,
      role,
    });
    unwrap(await createApiKey(deps, as(alice.user.id, 'admin'), { name: 'by an admin' }));
    expect(
      errorOf(await createApiKey(deps, as(alice.user.id, 'member'), { name: 'by a member' })),
    ).toEqual({
      code: 'forbidden',
      message: 'only an owner or an admin may create a team API key',
    });
  });

  it("owners and admins list every key of a team, a member only the member's own", async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'admin' }),
    );
    const bobCtx = { ...team.ctx, userId: bob.user.id, role: 'admin' as const };
    const bobsKey = unwrap(await createApiKey(deps, bobCtx, { name: 'bob' })).key;
    const all = [team.teamKey.id, bobsKey.id].sort();
    expect((await listApiKeys(deps, team.ctx)).map((k) => k.id).sort()).toEqual(all);
    expect((await listApiKeys(deps, bobCtx)).map((k) => k.id).sort()).toEqual(all);
    const asMember = { ...bobCtx, role: 'member' as const };
    expect((await listApiKeys(deps, asMember)).map((k) => k.id)).toEqual([bobsKey.id]);
  });

  it('concurrent creations cannot pass the limit', async () => {
    const deps = createTestDeps({ settings: { maxApiKeysPerAccount: 3 } });
    const alice = await seedUser(deps);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createApiKey(deps, alice.ctx, { name: `k${i}` })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(await listApiKeys(deps, alice.ctx)).toHaveLength(3);
  });
});

describe('revokeApiKey', () => {
  it('revokes an own key; the key stops working', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const { key, rawKey } = unwrap(await createApiKey(deps, alice.ctx, { name: 'tmp' }));
    unwrap(await revokeApiKey(deps, alice.actor, key.id));
    expect(errorOf(await authenticateApiKey(deps, rawKey)).code).toBe('unauthorized');
    expect(errorOf(await revokeApiKey(deps, alice.actor, key.id)).code).toBe('not_found');
  });

  it("another user's key and unknown ids are not_found", async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    expect(errorOf(await revokeApiKey(deps, bob.actor, alice.apiKey.id)).code).toBe('not_found');
    expect(errorOf(await revokeApiKey(deps, bob.actor, UNKNOWN_ID)).code).toBe('not_found');
    expect(errorOf(await revokeApiKey(deps, bob.actor, 'abc')).code).toBe('not_found');
  });

  it('team keys: owners, admins and the creator may revoke, plain members may not', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const carol = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'admin' }),
    );
    unwrap(
      await addMember(deps, alice.actor, team.account.id, {
        userId: carol.user.id,
        role: 'member',
      }),
    );
    const bobCtx = { ...team.ctx, userId: bob.user.id, role: 'admin' as const };
    const bobsKey = unwrap(await createApiKey(deps, bobCtx, { name: 'bob' })).key;
    // Bob, now a plain member, may still revoke the key he made (it no longer acts).
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'member' }),
    );
    expect(errorOf(await revokeApiKey(deps, carol.actor, bobsKey.id)).code).toBe('forbidden');
    expect(errorOf(await revokeApiKey(deps, bob.actor, team.teamKey.id)).code).toBe('forbidden');
    unwrap(await revokeApiKey(deps, bob.actor, bobsKey.id));
    unwrap(await revokeApiKey(deps, alice.actor, team.teamKey.id));
  });

  it('reports not_found when the key vanished meanwhile', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const { key } = unwrap(await createApiKey(deps, alice.ctx, { name: 'tmp' }));
    deps.store.failNext('apiKeys.delete', new Error('boom'));
    await expect(revokeApiKey(deps, alice.actor, key.id)).rejects.toThrow('boom');
    const original = deps.repos.apiKeys.delete;
    deps.repos.apiKeys.delete = async () => false;
    expect(errorOf(await revokeApiKey(deps, alice.actor, key.id)).code).toBe('not_found');
    deps.repos.apiKeys.delete = original;
  });
});
