/**
 * What a credential reaches across accounts, on real storage in both modes (embedded: PGlite +
 * in-process queue; production: PostgreSQL + BullMQ on Redis):
 *
 * - a team API key acts for its team only: it creates no workspace (403), while a personal key
 *   does;
 * - `GET /posts` without `workspace_id` lists only the accounts the caller can act in now: a
 *   member removed from a team no longer sees the team's posts, those they created there
 *   included; their personal posts stay listed.
 */
import { expect, it } from 'vitest';
import { call, created, inBothModes, type RuntimeApi } from './runtime-api.ts';
import { seedUser } from './support.ts';

function defineScenarios(api: () => RuntimeApi) {
  it('a team key creates no workspace (403 forbidden); a personal key does', async () => {
    const alice = await seedUser(api().deps);
    const teamId = await created(api(), '/workspaces', alice.rawKey, { name: 'acme' });
    const teamKey = await call<{ data: { key: string } }>(
      api(),
      'POST',
      '/api-keys',
      alice.rawKey,
      {
        name: 'team ci',
        workspace_id: teamId,
      },
    );
    expect(teamKey.status).toBe(201);

    const refused = await call<{ error: { code: string; message: string } }>(
      api(),
      'POST',
      '/workspaces',
      teamKey.body.data.key,
      { name: 'made by a team key' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.message).toMatch(/team API key/);
    // Nothing was made: the creator is still in the one team.
    const teams = await call<{ data: Array<{ id: string }> }>(
      api(),
      'GET',
      '/workspaces',
      alice.rawKey,
    );
    expect(teams.body.data.map((team) => team.id)).toEqual([teamId]);
    // The team key still works in its team; the personal key still creates teams.
    expect((await call(api(), 'GET', '/posts', teamKey.body.data.key)).status).toBe(200);
    await created(api(), '/workspaces', alice.rawKey, { name: 'second' });
  });

  it('GET /posts lists only accounts the caller can act in now: a removed member loses the team', async () => {
    const alice = await seedUser(api().deps);
    const bob = await seedUser(api().deps);
    const teamId = await created(api(), '/workspaces', alice.rawKey, { name: 'acme' });
    const added = await call(api(), 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(added.status).toBe(201);
    const sandbox = { platform: 'twitter', sandbox: true };
    const teamConnection = await created(api(), '/social-accounts', bob.rawKey, {
      ...sandbox,
      workspace_id: teamId,
    });
    const ownConnection = await created(api(), '/social-accounts', bob.rawKey, sandbox);
    const inTeam = await created(api(), '/posts/schedule', bob.rawKey, {
      content: 'made in the team',
      social_account_ids: [teamConnection],
      scheduled_at: '2099-01-01T00:00:00Z',
      workspace_id: teamId,
    });
    const personal = await created(api(), '/posts/schedule', bob.rawKey, {
      content: 'my own',
      social_account_ids: [ownConnection],
      scheduled_at: '2099-01-01T00:00:00Z',
    });

    const listed = async (query = '') => {
      const answer = await call<{ data: Array<{ id: string }> }>(
        api(),
        'GET',
        `/posts${query}`,
        bob.rawKey,
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data.map((post) => post.id).sort();
    };
    expect(await listed()).toEqual([inTeam, personal].sort());
    expect(await listed('?limit=10')).toEqual([inTeam, personal].sort());

    const removed = await call(
      api(),
      'DELETE',
      `/workspaces/${teamId}/members/${bob.user.id}`,
      alice.rawKey,
    );
    expect(removed.status).toBe(204);
    // Neither the whole list nor a page shows the team's post any more; the personal one stays.
    expect(await listed()).toEqual([personal]);
    expect(await listed('?limit=10')).toEqual([personal]);
    expect(await listed('?limit=1')).toEqual([personal]);
    expect((await call(api(), 'GET', `/posts?workspace_id=${teamId}`, bob.rawKey)).status).toBe(
      403,
    );
    expect((await call(api(), 'GET', `/posts/${inTeam}`, bob.rawKey)).status).toBe(404);
    // The team still has the post: its owner reaches it.
    expect((await call(api(), 'GET', `/posts/${inTeam}`, alice.rawKey)).status).toBe(200);

    // Back in the team, its posts are listed again.
    const readded = await call(api(), 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(readded.status).toBe(201);
    expect(await listed()).toEqual([inTeam, personal].sort());
  });
}

await inBothModes('what a credential reaches across accounts', defineScenarios);
