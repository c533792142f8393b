/**
 * Approval over HTTP (docs/api.md#approval): the workspace setting, the approve and reject
 * routes with their answers and refusals, and GET /posts?status=.
 */
import { POST_STATUSES } from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  seedConnection,
  seedUser,
} from './support.ts';

let h: Harness;
let team: string;
let connection: string;
/** carol: an admin of the team; bob: a member. alice owns it. */
let carol: Awaited<ReturnType<typeof seedUser>>;

beforeEach(async () => {
  h = await createHarness();
  carol = await seedUser(h.deps, 'carol@example.com');
  const created = await h.call({
    method: 'POST',
    url: '/workspaces',
    headers: h.as(h.alice),
    payload: { name: 'Review desk' },
  });
  team = created.json().data.id;
  for (const [user, role] of [
    [h.bob, 'member'],
    [carol, 'admin'],
  ] as const) {
    const added = await h.call({
      method: 'POST',
      url: `/workspaces/${team}/members`,
      headers: h.as(h.alice),
      payload: { user_id: user.user.id, role },
    });
    expect(added.statusCode).toBe(201);
  }
  connection = (await seedConnection(h.deps, team, 'twitter', { sandbox: true })).id;
});
afterEach(() => h.close());

const requireApproval = (value: unknown, as = h.alice) =>
  h.call({
    method: 'PATCH',
    url: `/workspaces/${team}`,
    headers: h.as(as),
    payload: { approval_required: value },
  });

async function memberPost(): Promise<{ id: string; status: string }> {
  const response = await h.call({
    method: 'POST',
    url: '/posts',
    headers: h.as(h.bob),
    payload: { workspace_id: team, content: 'please check', social_account_ids: [connection] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data;
}

const decide = (id: string, verb: 'approve' | 'reject', as: typeof h.alice, payload?: object) =>
  h.call({
    method: 'POST',
    url: `/posts/${id}/${verb}`,
    headers: h.as(as),
    ...(payload ? { payload } : {}),
  });

describe('PATCH /workspaces/:id', () => {
  it('owners and admins set approval_required; the workspace answers with it', async () => {
    const on = await requireApproval(true, carol);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data).toMatchObject({ id: team, role: 'admin', approval_required: true });
    const listed = await h.call({ method: 'GET', url: '/workspaces', headers: h.as(h.bob) });
    expect(listed.json().data[0]).toMatchObject({ approval_required: true, role: 'member' });
  });

  it('a member, a stranger and a personal account are 403; a bad body is 400', async () => {
    expectError(await requireApproval(true, h.bob), 403, 'forbidden');
    const stranger = await seedUser(h.deps, 'stranger@example.com');
    expectError(await requireApproval(true, stranger), 403, 'forbidden');
    const personal = await h.call({
      method: 'PATCH',
      url: `/workspaces/${h.alice.user.id}`,
      headers: h.as(h.alice),
      payload: { approval_required: true },
    });
    expect(expectError(personal, 403, 'forbidden').message).toMatch(/personal account/);
    expectInvalid(await requireApproval('yes'), 'approval_required');
    expectInvalid(
      await h.call({
        method: 'PATCH',
        url: `/workspaces/${team}`,
        headers: h.as(h.alice),
        payload: {},
      }),
      'approval_required',
    );
  });
});

describe('POST /posts/:id/approve and /reject', () => {
  beforeEach(async () => {
    expect((await requireApproval(true)).statusCode).toBe(200);
  });

  it("a member's post waits, an admin approves it: 200 with the post queued", async () => {
    const post = await memberPost();
    expect(post.status).toBe('pending_approval');
    const approved = await decide(post.id, 'approve', carol);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().data).toMatchObject({
      id: post.id,
      status: 'queued',
      rejection_reason: null,
    });
    expectError(await decide(post.id, 'approve', h.alice), 409, 'post_not_pending');
  });

  it('rejects with a reason shown as rejection_reason; the reason is required and bounded', async () => {
    const post = await memberPost();
    expectInvalid(await decide(post.id, 'reject', h.alice, {}), 'reason');
    expectInvalid(await decide(post.id, 'reject', h.alice, { reason: '' }), 'reason');
    expectInvalid(await decide(post.id, 'reject', h.alice, { reason: '   ' }), 'reason');
    expectInvalid(
      await decide(post.id, 'reject', h.alice, { reason: 'x'.repeat(1_001) }),
      'reason',
    );
    const rejected = await decide(post.id, 'reject', h.alice, { reason: 'not our tone' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().data).toMatchObject({
      status: 'rejected',
      rejection_reason: 'not our tone',
    });
    const read = await h.call({ method: 'GET', url: `/posts/${post.id}`, headers: h.as(h.bob) });
    expect(read.json().data.rejection_reason).toBe('not our tone');
  });

  it('a member is 403 forbidden, the creator 403 own_post, a stranger 404', async () => {
    const post = await memberPost();
    expectError(await decide(post.id, 'approve', h.bob), 403, 'forbidden');
    const stranger = await seedUser(h.deps, 'stranger@example.com');
    expectError(await decide(post.id, 'approve', stranger), 404, 'not_found');
    expectError(await decide('not-a-post', 'approve', h.alice), 404, 'not_found');
    // carol's own post, sent back to approval by bob's edit.
    const own = await h.call({
      method: 'POST',
      url: '/posts/schedule',
      headers: h.as(carol),
      payload: {
        workspace_id: team,
        content: 'mine',
        social_account_ids: [connection],
        scheduled_at: '2026-06-01T09:30:00Z',
      },
    });
    const id = own.json().data.id;
    const edited = await h.call({
      method: 'PATCH',
      url: `/posts/${id}`,
      headers: h.as(h.bob),
      payload: { content: 'edited by a member' },
    });
    expect(edited.json().data.status).toBe('pending_approval');
    expectError(await decide(id, 'reject', carol, { reason: 'no' }), 403, 'own_post');
    expect((await decide(id, 'approve', h.alice)).json().data.status).toBe('scheduled');
  });
});

describe('GET /posts?status=', () => {
  it('an unknown status is 400 listing the known ones', async () => {
    const response = await h.call({
      method: 'GET',
      url: '/posts?status=waiting',
      headers: h.as(h.alice),
    });
    const error = expectError(response, 400, 'validation_failed');
    expect(error.details?.[0]?.field).toBe('status');
    for (const status of POST_STATUSES)
      expect(error.message + JSON.stringify(error.details)).toContain(status);
  });

  it('pending_approval in a team: every waiting post for an approver, their own for a member', async () => {
    expect((await requireApproval(true)).statusCode).toBe(200);
    const first = await memberPost();
    const second = await memberPost();
    const url = `/posts?status=pending_approval&workspace_id=${team}`;
    for (const approver of [h.alice, carol]) {
      const listed = await h.call({ method: 'GET', url, headers: h.as(approver) });
      expect(listed.json().data.map((post: { id: string }) => post.id)).toEqual([
        second.id,
        first.id,
      ]);
      const paged = await h.call({ method: 'GET', url: `${url}&limit=1`, headers: h.as(approver) });
      expect(paged.json()).toMatchObject({
        data: [{ id: second.id }],
        next_cursor: expect.any(String),
      });
    }
    const own = await h.call({ method: 'GET', url, headers: h.as(h.bob) });
    expect(own.json().data).toHaveLength(2);
    await decide(first.id, 'approve', carol);
    const left = await h.call({ method: 'GET', url, headers: h.as(h.alice) });
    expect(left.json().data.map((post: { id: string }) => post.id)).toEqual([second.id]);
    const queued = await h.call({
      method: 'GET',
      url: `/posts?status=queued&workspace_id=${team}`,
      headers: h.as(h.bob),
    });
    expect(queued.json().data.map((post: { id: string }) => post.id)).toEqual([first.id]);
  });
});
