import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  seedWorkspace,
} from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const createKey = (payload: object, headers = h.as(h.alice)) =>
  h.call({ method: 'POST', url: '/api-keys', headers, payload });

describe('POST /api-keys', () => {
  it('201 with the raw key once, Location, and the key works', async () => {
    const response = await createKey({ name: 'ci' });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual([
      'created_at',
      'id',
      'key',
      'key_prefix',
      'name',
      'workspace_id',
    ]);
    expect(data).toMatchObject({ name: 'ci', workspace_id: null });
    expect(data.key).toMatch(/^sp_[A-Za-z0-9]{40}$/);
    expect(data.key.startsWith(data.key_prefix)).toBe(true);
    expect(response.headers.location).toBe(`/api-keys/${data.id}`);
    const withNewKey = await h.call({
      method: 'GET',
      url: '/api-keys',
      headers: { 'x-api-key': data.key },
    });
    expect(withNewKey.statusCode).toBe(200);
  });

  it('name must be 1-100 characters', async () => {
    expectInvalid(await createKey({ name: '' }), 'name');
    expectInvalid(await createKey({ name: '   ' }), 'name');
    expectInvalid(await createKey({ name: 'n'.repeat(101) }), 'name');
    expectInvalid(await createKey({}), 'name');
    expect((await createKey({ name: 'n'.repeat(100) })).statusCode).toBe(201);
  });

  it('the 11th key of an account: 409 limit_exceeded', async () => {
    // alice already holds her first key ("default").
    for (let i = 2; i <= 10; i++) expect((await createKey({ name: `k${i}` })).statusCode).toBe(201);
    expectError(await createKey({ name: 'eleven' }), 409, 'limit_exceeded');
  });

  it('a team key: workspace_id of a team the caller belongs to', async () => {
    const team = await seedWorkspace(h.deps, h.alice);
    const response = await createKey({ name: 'team ci', workspace_id: team.account.id });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.workspace_id).toBe(team.account.id);
  });

  it('workspace_id of a team the caller is not a member of: 403', async () => {
    const team = await seedWorkspace(h.deps, h.bob);
    expectError(await createKey({ name: 'x', workspace_id: team.account.id }), 403, 'forbidden');
    expectError(
      await createKey({ name: 'x', workspace_id: '00000000-0000-7000-8000-00000000ffff' }),
      403,
      'forbidden',
    );
  });
});

describe('GET /api-keys', () => {
  it('lists keys without raw keys or hashes', async () => {
    await createKey({ name: 'second' });
    const response = await h.call({ method: 'GET', url: '/api-keys', headers: h.as(h.alice) });
    expect(response.statusCode).toBe(200);
    const keys = response.json().data;
    expect(keys.map((key: { name: string }) => key.name).sort()).toEqual(['default', 'second']);
    expect(Object.keys(keys[0]).sort()).toEqual([
      'created_at',
      'created_by',
      'id',
      'key_prefix',
      'last_used_at',
      'name',
      'workspace_id',
    ]);
    expect(response.body).not.toContain(h.alice.rawKey);
    expect(response.body).not.toContain(h.alice.apiKey.keyHash);
  });
});

describe('DELETE /api-keys/:id', () => {
  it('204 with no body, and the key stops working', async () => {
    const created = (await createKey({ name: 'temp' })).json().data;
    const response = await h.call({
      method: 'DELETE',
      url: `/api-keys/${created.id}`,
      headers: h.as(h.alice),
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expectError(await h.call({ method: 'GET', url: '/posts', headers: h.as(created.key) }), 401);
  });

  it('unknown key: 404; another account key: 404', async () => {
    expectError(
      await h.call({
        method: 'DELETE',
        url: '/api-keys/00000000-0000-7000-8000-00000000ffff',
        headers: h.as(h.alice),
      }),
      404,
      'not_found',
    );
    expectError(
      await h.call({
        method: 'DELETE',
        url: `/api-keys/${h.bob.apiKey.id}`,
        headers: h.as(h.alice),
      }),
      404,
      'not_found',
    );
  });

  it('a plain member may not revoke a team key they did not create: 403', async () => {
    const team = await seedWorkspace(h.deps, h.alice);
    const added = await h.call({
      method: 'POST',
      url: `/workspaces/${team.account.id}/members`,
      headers: h.as(h.alice),
      payload: { user_id: h.bob.user.id, role: 'member' },
    });
    expect(added.statusCode).toBe(201);
    expectError(
      await h.call({ method: 'DELETE', url: `/api-keys/${team.teamKey.id}`, headers: h.as(h.bob) }),
      403,
      'forbidden',
    );
  });
});
