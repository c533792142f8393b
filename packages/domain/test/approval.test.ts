/**
 * Approval (docs/api.md#approval): who is held, approve and reject with their refusals, edits
 * and cancels of waiting posts, and the races between them.
 */
import { describe, expect, it } from 'vitest';
import {
  approvePost,
  cancelPost,
  createPost,
  DONE,
  editPost,
  MAX_REJECTION_REASON_LENGTH,
  processPublishJob,
  reconcile,
  rejectPost,
} from '../src/index.ts';
import { seedConnection, seedUser } from '../src/testing/index.ts';
import { approvalTeam, hasJob, LATER } from './approval-support.ts';
import { errorOf, jobCtx, unwrap } from './support.ts';

describe('who is held', () => {
  it("a member's post waits: stored, no job, post.created then post.approval_requested", async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    expect(post.status).toBe('pending_approval');
    expect(await t.deps.repos.posts.findById(post.id)).toEqual(post);
    expect(hasJob(t.deps, post)).toBe(false);
    expect(t.sent('post.created').map((p) => p.data.status)).toEqual(['pending_approval']);
    expect(t.sent('post.approval_requested')).toEqual([
      expect.objectContaining({ post_id: post.id, data: { user_id: t.member.user.id } }),
    ]);
  });

  it("owners' and admins' posts are not held; nor members' when the team does not ask", async () => {
    const t = await approvalTeam();
    for (const user of [t.owner, t.admin]) {
      const post = unwrap(await createPost(t.deps, t.ctx(user), t.body(), 'now'));
      expect(post.status).toBe('queued');
      expect(hasJob(t.deps, post)).toBe(true);
    }
    const open = await approvalTeam({ required: false });
    const post = unwrap(await createPost(open.deps, open.ctx(open.member), open.body(), 'now'));
    expect(post.status).toBe('queued');
    expect(open.sent('post.approval_requested')).toEqual([]);
  });

  it('a waiting post is never started: not by the due scan, not by a job, whatever its time', async () => {
    const t = await approvalTeam();
    const body = t.body({ scheduled_at: LATER });
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), body, 'scheduled'));
    t.deps.clock.advance(2 * 3_600_000);
    const report = await reconcile(t.deps);
    expect(report.postsEnqueued).toBe(0);
    expect(hasJob(t.deps, post)).toBe(false);
    // A stray job (one enqueued before the post was sent back) ends without publishing.
    expect(await processPublishJob(t.deps, post.id, jobCtx())).toEqual(DONE);
    expect(t.deps.platforms.allCalls()).toEqual([]);
    expect((await t.deps.repos.posts.findById(post.id))?.status).toBe('pending_approval');
  });
});

describe('approvePost', () => {
  it('an admin approves: queued, enqueued now, post.approved, then published', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    t.deps.clock.advance(1_000);
    const approved = unwrap(await approvePost(t.deps, t.admin.actor, post.id));
    expect(approved).toMatchObject({ status: 'queued', rejectionReason: null });
    expect(t.deps.queue.list('publish')).toEqual([
      expect.objectContaining({ id: post.id, runAt: t.deps.clock.now() }),
    ]);
    expect(t.sent('post.approved')).toEqual([
      expect.objectContaining({ post_id: post.id, data: { user_id: t.admin.user.id } }),
    ]);
    await t.deps.runJobs();
    expect((await t.deps.repos.posts.findById(post.id))?.status).toBe('published');
  });

  it('a scheduled post keeps its time; one whose time passed meanwhile runs at once', async () => {
    const t = await approvalTeam();
    const body = t.body({ scheduled_at: LATER });
    const early = unwrap(await createPost(t.deps, t.ctx(t.member), body, 'scheduled'));
    const late = unwrap(await createPost(t.deps, t.ctx(t.member), body, 'scheduled'));
    expect(unwrap(await approvePost(t.deps, t.owner.actor, early.id)).status).toBe('scheduled');
    expect(t.deps.queue.list('publish')[0]?.runAt.toISOString()).toBe(LATER);
    t.deps.clock.advance(2 * 3_600_000);
    const approved = unwrap(await approvePost(t.deps, t.admin.actor, late.id));
    expect(approved).toMatchObject({ status: 'scheduled', scheduledAt: new Date(LATER) });
    const job = t.deps.queue.list('publish').find((candidate) => candidate.id === late.id);
    expect(job?.runAt).toEqual(t.deps.clock.now());
    await t.deps.runJobs();
    expect((await t.deps.repos.posts.findById(late.id))?.status).toBe('published');
  });

  it('refuses a member (403), the post creator (403 own_post), another account (404)', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    expect(errorOf(await approvePost(t.deps, t.member.actor, post.id)).code).toBe('forbidden');
    const stranger = await seedUser(t.deps, 'stranger@example.com');
    expect(errorOf(await approvePost(t.deps, stranger.actor, post.id)).code).toBe('not_found');
    expect(errorOf(await rejectPost(t.deps, stranger.actor, post.id, { reason: 'x' })).code).toBe(
      'not_found',
    );
    // An admin's post that a member's edit sent back to approval: its creator may not approve it.
    const own = unwrap(
      await createPost(t.deps, t.ctx(t.admin), t.body({ scheduled_at: LATER }), 'scheduled'),
    );
    unwrap(await editPost(t.deps, t.member.actor, own.id, { content: 'a member edit' }));
    const refused = errorOf(await approvePost(t.deps, t.admin.actor, own.id));
    expect(refused.code).toBe('own_post');
    expect(refused.message).toMatch(/another owner or admin/);
    expect(errorOf(await rejectPost(t.deps, t.admin.actor, own.id, { reason: 'x' })).code).toBe(
      'own_post',
    );
    expect(unwrap(await approvePost(t.deps, t.owner.actor, own.id)).status).toBe('scheduled');
  });

  it('a post that does not wait is 409 post_not_pending, saying its status', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    unwrap(await approvePost(t.deps, t.admin.actor, post.id));
    const again = errorOf(await approvePost(t.deps, t.owner.actor, post.id));
    expect(again).toEqual({ code: 'post_not_pending', message: expect.stringMatching(/queued/) });
    const reject = errorOf(await rejectPost(t.deps, t.owner.actor, post.id, { reason: 'late' }));
    expect(reject.code).toBe('post_not_pending');
    expect(t.sent('post.approved')).toHaveLength(1);
    // A personal account's post is never held: nothing to decide, whoever asks.
    const personal = await seedConnection(t.deps, t.owner.user.id, 'twitter');
    const body = { content: 'mine', social_account_ids: [personal.id] };
    const own = unwrap(await createPost(t.deps, t.owner.ctx, body, 'now'));
    expect(own.status).toBe('queued');
    expect(errorOf(await approvePost(t.deps, t.owner.actor, own.id)).code).toBe('post_not_pending');
  });
});

describe('rejectPost', () => {
  it('rejected for good: reason stored, targets cancelled, post.rejected sent', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const rejected = unwrap(
      await rejectPost(t.deps, t.admin.actor, post.id, { reason: '  off-brand  ' }),
    );
    expect(rejected).toMatchObject({ status: 'rejected', rejectionReason: 'off-brand' });
    expect(rejected.targets.map((target) => target.status)).toEqual(['cancelled']);
    expect(hasJob(t.deps, post)).toBe(false);
    expect(t.sent('post.rejected')).toEqual([
      expect.objectContaining({
        post_id: post.id,
        data: { user_id: t.admin.user.id, reason: 'off-brand' },
      }),
    ]);
    expect(errorOf(await editPost(t.deps, t.member.actor, post.id, { content: 'x' })).code).toBe(
      'post_not_editable',
    );
    expect(errorOf(await cancelPost(t.deps, t.member.actor, post.id)).code).toBe('conflict');
    expect(errorOf(await approvePost(t.deps, t.owner.actor, post.id)).code).toBe(
      'post_not_pending',
    );
  });

  it('a reason is required, not blank, at most 1,000 characters', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const tooLong = 'x'.repeat(MAX_REJECTION_REASON_LENGTH + 1);
    for (const reason of [undefined, null, '', '   ', 42, tooLong]) {
      const error = errorOf(await rejectPost(t.deps, t.admin.actor, post.id, { reason }));
      expect(error).toMatchObject({ code: 'validation_failed', details: [{ field: 'reason' }] });
    }
    const longest = 'é'.repeat(MAX_REJECTION_REASON_LENGTH);
    const rejected = unwrap(await rejectPost(t.deps, t.admin.actor, post.id, { reason: longest }));
    expect(rejected.rejectionReason).toBe(longest);
  });
});

describe('edits and cancels of waiting and approved posts', () => {
  it("a member's edit sends an approved post back: pending, job removed, approval asked", async () => {
    const t = await approvalTeam();
    const body = t.body({ scheduled_at: LATER });
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), body, 'scheduled'));
    unwrap(await approvePost(t.deps, t.admin.actor, post.id));
    expect(hasJob(t.deps, post)).toBe(true);
    const edited = unwrap(await editPost(t.deps, t.member.actor, post.id, { content: 'changed' }));
    expect(edited.status).toBe('pending_approval');
    expect(hasJob(t.deps, post)).toBe(false);
    expect(t.sent('post.approval_requested').map((p) => p.data.user_id)).toEqual([
      t.member.user.id,
      t.member.user.id,
    ]);
    expect(t.sent('post.updated').map((p) => p.data.status)).toEqual(['pending_approval']);
  });

  it("an owner's or admin's edit of a waiting post leaves it waiting, and asks nothing", async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const later = { content: 'tidied', scheduled_at: LATER };
    const edited = unwrap(await editPost(t.deps, t.admin.actor, post.id, later));
    expect(edited).toMatchObject({ status: 'pending_approval', content: 'tidied' });
    expect(hasJob(t.deps, post)).toBe(false);
    expect(t.sent('post.approval_requested')).toHaveLength(1);
    // Its own creator edits it again while it waits: still waiting, asked once.
    unwrap(await editPost(t.deps, t.member.actor, post.id, { content: 'again' }));
    expect(t.sent('post.approval_requested')).toHaveLength(1);
    expect(unwrap(await approvePost(t.deps, t.owner.actor, post.id)).status).toBe('scheduled');
  });

  it('a waiting post can be cancelled', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const cancelled = unwrap(await cancelPost(t.deps, t.member.actor, post.id));
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.targets.map((target) => target.status)).toEqual(['cancelled']);
    expect(errorOf(await approvePost(t.deps, t.admin.actor, post.id)).code).toBe(
      'post_not_pending',
    );
  });
});

describe('races', () => {
  it('an edit landing between the approval read and its write: 409, the edit waits', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const decide = t.deps.repos.posts.decideApproval;
    t.deps.repos.posts.decideApproval = async (decision) => {
      unwrap(await editPost(t.deps, t.member.actor, post.id, { content: 'sneaky' }));
      return decide(decision);
    };
    const refused = errorOf(await approvePost(t.deps, t.admin.actor, post.id));
    expect(refused.code).toBe('conflict');
    t.deps.repos.posts.decideApproval = decide;
    const current = await t.deps.repos.posts.findById(post.id);
    expect(current).toMatchObject({ status: 'pending_approval', content: 'sneaky' });
    expect(hasJob(t.deps, post)).toBe(false);
    expect(t.sent('post.approved')).toEqual([]);
  });

  it('a cancel landing between the approval read and its write: 409, cancelled, no job', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const decide = t.deps.repos.posts.decideApproval;
    t.deps.repos.posts.decideApproval = async (decision) => {
      const at = t.deps.clock.now();
      await t.deps.repos.posts.transitionStatus(post.id, ['pending_approval'], 'cancelled', at);
      return decide(decision);
    };
    expect(errorOf(await approvePost(t.deps, t.admin.actor, post.id)).code).toBe(
      'post_not_pending',
    );
    t.deps.repos.posts.decideApproval = decide;
    expect((await t.deps.repos.posts.findById(post.id))?.status).toBe('cancelled');
    expect(hasJob(t.deps, post)).toBe(false);
  });

  it('an approval landing while a member edits a waiting post: the edit is a 409', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    const apply = t.deps.repos.posts.applyEdit;
    t.deps.repos.posts.applyEdit = async (edit) => {
      unwrap(await approvePost(t.deps, t.admin.actor, post.id));
      return apply(edit);
    };
    const refused = errorOf(await editPost(t.deps, t.member.actor, post.id, { content: 'late' }));
    t.deps.repos.posts.applyEdit = apply;
    expect(refused.code).toBe('conflict');
    const current = await t.deps.repos.posts.findById(post.id);
    expect(current).toMatchObject({ status: 'queued', content: 'for review' });
    expect(hasJob(t.deps, post)).toBe(true);
  });

  it('an edit in the same millisecond as the read still moves the version approved', async () => {
    const t = await approvalTeam();
    const post = unwrap(await createPost(t.deps, t.ctx(t.member), t.body(), 'now'));
    // The clock does not move: the edit must still be a new version.
    const edited = unwrap(await editPost(t.deps, t.member.actor, post.id, { content: 'same ms' }));
    expect(edited.updatedAt.getTime()).toBeGreaterThan(post.updatedAt.getTime());
    const stale = { postId: post.id, to: 'queued' as const, rejectionReason: null };
    const at = t.deps.clock.now();
    expect(
      await t.deps.repos.posts.decideApproval({ ...stale, seenUpdatedAt: post.updatedAt, at }),
    ).toBe(false);
  });
});
