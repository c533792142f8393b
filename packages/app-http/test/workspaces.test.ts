import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, expectError, expectInvalid, type Harness } from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

async function createTeam(name = 'Acme'): Promise<string> {
  const response = await h.call({
    method: 'POST',
    url: '/workspaces',
    headers: h.as(h.alice),
    payload: { name },
  });
  expect(response.statusCode).toBe(201);
  return response.json().data.id;
}

describe('workspaces', () => {
  it('POST creates a team owned by the caller; GET lists it with the role', async () => {
    const response = await h.call({
      method: 'POST',
      url: '/workspaces',
      headers: h.as(h.alice),
      payload: { name: 'Acme' },
    });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual([
      'approval_required',
      'created_at',
      'id',
      'name',
      'role',
    ]);
    expect(data).toMatchObject({ name: 'Acme', role: 'owner', approval_required: false });
    expect(response.headers.location).toBe(`/workspaces/${data.id}`);
    const list = await h.call({ method: 'GET', url: '/workspaces', headers: h.as(h.alice) });
    expect(list.json().data).toEqual([data]);
    const bobs = await h.call({ method: 'GET', url: '/workspaces', headers: h.as(h.bob) });
    expect(bobs.json()).toEqual({ data: [] });
  });

  it('name 1-100 characters', async () => {
    expectInvalid(
      await h.call({
        method: 'POST',
        url: '/workspaces',
        headers: h.as(h.alice),
        payload: { name: '' },
      }),
      'name',
    );
    expectInvalid(
      await h.call({
        method: 'POST',
        url: '/workspaces',
        headers: h.as(h.alice),
        payload: { name: 'n'.repeat(101) },
      }),
      'name',
    );
  });

  it('members: add (201), act in the team, remove (204)', async () => {
    const team = await createTeam();
    const added = await h.call({
      method: 'POST',
      url: `/workspaces/${team}/members`,
      headers: h.as(h.alice),
      payload: { user_id: h.bob.user.id, role: 'admin' },
    });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({
      workspace_id: team,
      user_id: h.bob.user.id,
      role: 'admin',
    });
    const bobsView = await h.call({ method: 'GET', url: '/workspaces', headers: h.as(h.bob) });
    expect(bobsView.json().data).toMatchObject([{ id: team, role: 'admin' }]);
    const bobActs = await h.call({
      method: 'GET',
      url: `/webhooks?workspace_id=${team}`,
      headers: h.as(h.bob),
    });
    expect(bobActs.statusCode).toBe(200);

    const removed = await h.call({
      method: 'DELETE',
      url: `/workspaces/${team}/members/${h.bob.user.id}`,
      headers: h.as(h.alice),
    });
    expect(removed.statusCode).toBe(204);
    expectError(
      await h.call({ method: 'GET', url: `/webhooks?workspace_id=${team}`, headers: h.as(h.bob) }),
      403,
    );
  });

  it('non-members get 403; unknown user 400; bad role 400; last owner 409', async () => {
    const team = await createTeam();
    expectError(
      await h.call({
        method: 'POST',
        url: `/workspaces/${team}/members`,
        headers: h.as(h.bob),
        payload: { user_id: h.bob.user.id, role: 'owner' },
      }),
      403,
      'forbidden',
    );
    expectInvalid(
      await h.call({
        method: 'POST',
        url: `/workspaces/${team}/members`,
        headers: h.as(h.alice),
        payload: { user_id: '00000000-0000-7000-8000-00000000ffff', role: 'member' },
      }),
      'user_id',
    );
    expectInvalid(
      await h.call({
        method: 'POST',
        url: `/workspaces/${team}/members`,
        headers: h.as(h.alice),
        payload: { user_id: h.bob.user.id, role: 'king' },
      }),
      'role',
    );
    expectError(
      await h.call({
        method: 'DELETE',
        url: `/workspaces/${team}/members/${h.alice.user.id}`,
        headers: h.as(h.alice),
      }),
      409,
      'conflict',
    );
    expectError(
      await h.call({
        method: 'DELETE',
        url: `/workspaces/${team}/members/${h.alice.user.id}`,
        headers: h.as(h.bob),
      }),
      403,
    );
  });
});
