/**
 * Approval end to end (docs/api.md#approval), on the real stores and queues: production
 * (PostgreSQL + BullMQ + a separate worker) and embedded (PGlite + the in-process queue). In a
 * team that requires approval, a member's posts wait and nothing starts them; an admin approves
 * one (it publishes to a sandbox connection) and rejects another; a member's edit of an
 * approved post takes its job out of the queue; a post whose time passed while it waited is
 * published at once when approved. The webhooks arrive signed at a verifying receiver.
 */
import { createUser } from '@social-publisher/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Api, type Mode, type System, sleep, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const modes: Mode[] = ['production', 'embedded'];

interface PostJson {
  id: string;
  status: string;
  rejection_reason: string | null;
  post_targets: Array<{ status: string; platform_post_id: string | null }>;
}

const EVENTS = [
  'post.approval_requested',
  'post.approved',
  'post.rejected',
  'post.published',
] as const;

/** Longer than a few reconcile passes (RECONCILE_INTERVAL_MS 300 in these tests). */
const QUIET_MS = 1_500;

describe.each(modes)('approval, %s mode', (mode) => {
  const e2e = useSystem(mode);
  /** Requests as the owner (the system's user), the admin and the member. */
  let owner: Api['call'];
  let admin: Api['call'];
  let member: Api['call'];
  let adminId = '';
  let memberId = '';
  let team = '';
  let connection = '';

  /** A user of the system, added to the team with `role`: requests as them, and their id. */
  async function teamUser(system: System, role: 'admin' | 'member') {
    const made = await createUser(system.deps, { email: `${role}-${mode}@example.com` });
    if (!made.ok) throw new Error(made.error.message);
    const { user, rawKey } = made.value;
    const added = await owner('POST', `/workspaces/${team}/members`, { user_id: user.id, role });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const as: Api['call'] = (method, path, body, headers = {}) =>
      system.api.call(method, path, body, { authorization: `Bearer ${rawKey}`, ...headers });
    return { as, id: user.id };
  }

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    owner = system.api.call;
    const created = await owner<{ data: { id: string } }>('POST', '/workspaces', {
      name: `review ${mode}`,
    });
    team = created.body.data.id;
    ({ as: admin, id: adminId } = await teamUser(system, 'admin'));
    ({ as: member, id: memberId } = await teamUser(system, 'member'));
    const set = await owner('PATCH', `/workspaces/${team}`, { approval_required: true });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const account = await owner<{ data: { id: string } }>('POST', '/social-accounts', {
      workspace_id: team,
      platform: 'twitter',
      sandbox: true,
      display_name: 'approval e2e',
    });
    connection = account.body.data.id;
    const hook = await owner<{ data: { secret: string } }>('POST', '/webhooks', {
      workspace_id: team,
      url: system.receiver.url('/approval'),
      events: EVENTS,
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    system.receiver.register('/approval', hook.body.data.secret);
  }, 60_000);

  const memberPost = async (extra: Record<string, unknown> = {}) => {
    const created = await member<{ data: PostJson }>(
      'POST',
      'scheduled_at' in extra ? '/posts/schedule' : '/posts',
      {
        workspace_id: team,
        content: `review ${mode} ${Date.now()}`,
        social_account_ids: [connection],
        ...extra,
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.status).toBe('pending_approval');
    return created.body.data;
  };
  const statusOf = async (id: string) =>
    (await owner<{ data: PostJson }>('GET', `/posts/${id}`)).body.data.status;
  const arrivals = (system: System, postId: string, event: string) =>
    system.receiver.arrivalsFor(postId, '/approval').filter((arrival) => arrival.event === event);

  it("a member's post waits untouched; an admin approves it and it publishes, announced", async (context) => {
    const system = e2e.orSkip(context);
    const post = await memberPost();
    await sleep(QUIET_MS);
    expect(await statusOf(post.id)).toBe('pending_approval');
    const waiting = await admin<{ data: PostJson[] }>(
      'GET',
      `/posts?status=pending_approval&workspace_id=${team}`,
    );
    expect(waiting.body.data.map((candidate) => candidate.id)).toContain(post.id);
    expect((await member('POST', `/posts/${post.id}/approve`)).status).toBe(403);

    const approved = await admin<{ data: PostJson }>('POST', `/posts/${post.id}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.status).toBe('queued');
    const published = await waitFor(
      `post ${post.id} published`,
      async () => {
        const read = await owner<{ data: PostJson }>('GET', `/posts/${post.id}`);
        return read.body.data.status === 'published' ? read.body.data : undefined;
      },
      20_000,
    );
    expect(published.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);

    await waitFor(
      'the approval webhooks',
      () => arrivals(system, post.id, 'post.published').length > 0,
      20_000,
    );
    expect(system.receiver.rejected).toEqual([]);
    const [requested] = arrivals(system, post.id, 'post.approval_requested');
    expect(requested?.payload.data).toEqual({ user_id: memberId });
    const [approval] = arrivals(system, post.id, 'post.approved');
    expect(approval?.payload.data).toEqual({ user_id: adminId });
  });

  it('an admin rejects a post with a reason: rejected for good, post.rejected sent', async (context) => {
    const system = e2e.orSkip(context);
    const post = await memberPost({ scheduled_at: new Date(Date.now() + 1_000).toISOString() });
    const rejected = await admin<{ data: PostJson }>('POST', `/posts/${post.id}/reject`, {
      reason: 'not our tone',
    });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.data).toMatchObject({
      status: 'rejected',
      rejection_reason: 'not our tone',
    });
    await waitFor(
      'post.rejected',
      () => arrivals(system, post.id, 'post.rejected').length > 0,
      20_000,
    );
    expect(arrivals(system, post.id, 'post.rejected')[0]?.payload.data).toEqual({
      user_id: adminId,
      reason: 'not our tone',
    });
    await sleep(QUIET_MS);
    const read = await owner<{ data: PostJson }>('GET', `/posts/${post.id}`);
    expect(read.body.data.status).toBe('rejected');
    expect(read.body.data.post_targets.map((target) => target.status)).toEqual(['cancelled']);
    const again = await owner<{ error: { code: string } }>('POST', `/posts/${post.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('post_not_pending');
  });

  it("a member's edit of an approved post takes it out of the queue: its time passes, it waits", async (context) => {
    e2e.orSkip(context);
    const post = await memberPost({ scheduled_at: new Date(Date.now() + 1_500).toISOString() });
    const approved = await owner<{ data: PostJson }>('POST', `/posts/${post.id}/approve`);
    expect(approved.body.data.status).toBe('scheduled');
    const edited = await member<{ data: PostJson }>('PATCH', `/posts/${post.id}`, {
      content: 'changed after approval',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.status).toBe('pending_approval');
    await sleep(1_500 + QUIET_MS);
    expect(await statusOf(post.id)).toBe('pending_approval');
    // Approved again once its time has passed: published at once.
    expect((await admin('POST', `/posts/${post.id}/approve`)).status).toBe(200);
    await waitFor(
      `post ${post.id} published`,
      async () => (await statusOf(post.id)) === 'published',
      20_000,
    );
  });
});
