/**
 * Approval across every way a post is made (bulk, CSV rows share it, a repeating series, the
 * slots queue), the team setting, and the approvers' list (docs/api.md#approval).
 */
import { describe, expect, it } from 'vitest';
import {
  addMember,
  approvePost,
  createPost,
  createPostBatch,
  createRepeatingPost,
  extendSeries,
  listPosts,
  listPostsPage,
  listWorkspaces,
  putSlots,
  queuePost,
  stopSeries,
  updateWorkspace,
} from '../src/index.ts';
import { seedUser } from '../src/testing/index.ts';
import { approvalTeam, hasJob, LATER } from './approval-support.ts';
import { errorOf, unwrap } from './support.ts';

describe('the workspace setting', () => {
  it('owners and admins turn it on and off; it shows on the workspace', async () => {
    const t = await approvalTeam({ required: false });
    const on = unwrap(
      await updateWorkspace(t.deps, t.admin.actor, t.teamId, { approvalRequired: true }),
    );
    expect(on).toMatchObject({ account: { approvalRequired: true }, role: 'admin' });
    const [listed] = await listWorkspaces(t.deps, t.member.actor);
    expect(listed?.account.approvalRequired).toBe(true);
    const off = unwrap(
      await updateWorkspace(t.deps, t.owner.actor, t.teamId, { approvalRequired: false }),
    );
    expect(off.account.approvalRequired).toBe(false);
  });

  it('a member is 403; a stranger and a personal account are 403; bad input is 400', async () => {
    const t = await approvalTeam({ required: false });
    const set = { approvalRequired: true };
    const member = errorOf(await updateWorkspace(t.deps, t.member.actor, t.teamId, set));
    expect(member).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/owner or an admin/),
    });
    const stranger = await seedUser(t.deps, 'stranger@example.com');
    expect(errorOf(await updateWorkspace(t.deps, stranger.actor, t.teamId, set)).code).toBe(
      'forbidden',
    );
    expect(errorOf(await updateWorkspace(t.deps, stranger.actor, 'nope', set)).code).toBe(
      'forbidden',
    );
    const personal = errorOf(await updateWorkspace(t.deps, t.owner.actor, t.owner.user.id, set));
    expect(personal).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/personal account/),
    });
    // Someone else's personal account answers as any account out of reach.
    const foreign = errorOf(await updateWorkspace(t.deps, stranger.actor, t.owner.user.id, set));
    expect(foreign.message).toBe('you are not a member of this workspace');
    for (const input of [{}, { approvalRequired: 'yes' }]) {
      const error = errorOf(await updateWorkspace(t.deps, t.owner.actor, t.teamId, input));
      expect(error).toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'approval_required' }],
      });
    }
  });

  it('turning it off releases nothing: a waiting post still waits for a decision', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    unwrap(await updateWorkspace(t.deps, t.owner.actor, t.teamId, { approvalRequired: false }));
    expect((await t.deps.repos.posts.findById(post.id))?.status).toBe('pending_approval');
    expect(hasJob(t.deps, post)).toBe(false);
  });
});

describe('every way a member makes posts is held', () => {
  it('bulk (and CSV import, which shares it): each post waits on its own', async () => {
    const t = await approvalTeam();
    const outcomes = await createPostBatch(t.deps, t.ctx(t.member), [
      { input: t.body() },
      { input: t.body({ scheduled_at: LATER }) },
    ]);
    const posts = outcomes.map((outcome) => (outcome.ok ? outcome.post : null));
    expect(posts.map((post) => post?.status)).toEqual(['pending_approval', 'pending_approval']);
    expect(t.deps.queue.list('publish')).toEqual([]);
    expect(t.sent('post.approval_requested')).toHaveLength(2);
    const [first] = posts;
    if (!first) throw new Error('no post');
    expect(unwrap(await approvePost(t.deps, t.admin.actor, first.id)).status).toBe('queued');
  });

  it('a repeating series: each occurrence waits on its own, while its creator is a member', async () => {
    const t = await approvalTeam();
    const rule = { rrule: 'FREQ=DAILY', timezone: 'UTC' };
    const first = unwrap(
      await createRepeatingPost(t.deps, t.ctx(t.member), t.body({ scheduled_at: LATER }), rule),
    );
    expect(first.status).toBe('pending_approval');
    const occurrences = async () =>
      [...t.deps.store.tables.posts.values()].filter((post) => post.seriesId === first.seriesId);
    // The first and the one after it exist at once; both wait, none has a job.
    expect((await occurrences()).map((post) => post.status)).toEqual([
      'pending_approval',
      'pending_approval',
    ]);
    expect(t.deps.queue.list('publish')).toEqual([]);
    expect(t.sent('post.approval_requested')).toHaveLength(2);
    // Approving one occurrence approves that one only.
    unwrap(await approvePost(t.deps, t.admin.actor, first.id));
    expect((await occurrences()).map((post) => post.status)).toEqual([
      'scheduled',
      'pending_approval',
    ]);
    // Promoted to admin: the occurrences created from now on are not held.
    unwrap(
      await addMember(t.deps, t.owner.actor, t.teamId, { userId: t.member.user.id, role: 'admin' }),
    );
    t.deps.clock.advance(24 * 3_600_000);
    expect(await extendSeries(t.deps)).toBeGreaterThan(0);
    const statuses = (await occurrences()).map((post) => post.status);
    expect(statuses.slice(0, 2)).toEqual(['scheduled', 'pending_approval']);
    expect(statuses.slice(2).every((status) => status === 'scheduled')).toBe(true);
    // Stopping the series cancels the occurrences still waiting too.
    unwrap(await stopSeries(t.deps, t.owner.actor, first.seriesId as string));
    expect((await occurrences())[1]?.status).toBe('cancelled');
  });

  it('the slots queue: the post waits at its slot, holding it', async () => {
    const t = await approvalTeam();
    const week = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const slots = { timezone: 'UTC', slots: week.map((day) => ({ day, time: '09:00' })) };
    unwrap(await putSlots(t.deps, t.owner.actor, t.connectionId, slots));
    const held = unwrap(await queuePost(t.deps, t.ctx(t.member), t.body()));
    expect(held).toMatchObject({
      status: 'pending_approval',
      scheduledAt: new Date('2026-01-01T09:00:00Z'),
    });
    expect(hasJob(t.deps, held)).toBe(false);
    const next = unwrap(await queuePost(t.deps, t.ctx(t.admin), t.body()));
    expect(next).toMatchObject({
      status: 'scheduled',
      scheduledAt: new Date('2026-01-02T09:00:00Z'),
    });
  });
});

describe('GET /posts with status', () => {
  it('owners and admins list every waiting post of the team; a member lists their own', async () => {
    const t = await approvalTeam();
    const other = await seedUser(t.deps, 'other-member@example.com');
    unwrap(
      await addMember(t.deps, t.owner.actor, t.teamId, { userId: other.user.id, role: 'member' }),
    );
    const mine = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    t.deps.clock.advance(1_000);
    const theirs = unwrap(
      await createPost(t.deps, { ...t.ctx(other), role: 'member' }, t.body(), 'now'),
    );
    unwrap(await createPost(t.deps, t.ctx(t.admin), t.body(), 'now'));
    const ids = (posts: Array<{ id: string }>) => posts.map((post) => post.id);
    for (const approver of [t.owner, t.admin]) {
      const waiting = await listPosts(t.deps, approver.actor, t.teamId, 'pending_approval');
      expect(ids(waiting)).toEqual([theirs.id, mine.id]);
      const page = unwrap(
        await listPostsPage(t.deps, approver.actor, { limit: 1 }, t.teamId, 'pending_approval'),
      );
      expect(ids(page.posts)).toEqual([theirs.id]);
      expect(page.nextCursor).not.toBeNull();
    }
    expect(ids(await listPosts(t.deps, t.member.actor, t.teamId, 'pending_approval'))).toEqual([
      mine.id,
    ]);
    // Without workspace_id (or with another status) the list stays the caller's own posts.
    expect(await listPosts(t.deps, t.admin.actor, undefined, 'pending_approval')).toEqual([]);
    expect(ids(await listPosts(t.deps, t.admin.actor, t.teamId, 'queued'))).toHaveLength(1);
    expect(await listPosts(t.deps, t.member.actor, t.teamId, 'queued')).toEqual([]);
  });
});
