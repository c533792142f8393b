/**
 * Contract of what approval asks of storage (docs/api.md#approval): a team's setting, the
 * conditional decision on a waiting post, the lists by status, and that a waiting post is never
 * due nor started whatever its time.
 *
 *   import { describeApprovalStorageContract } from '@social-publisher/domain/contracts/storage-approval';
 */
import { describe, expect, it } from 'vitest';
import type { PostWithTargets } from '../../model.ts';
import type { ApprovalDecision } from '../../ports/index.ts';
import {
  ancient,
  makePost,
  nextTime,
  plus,
  type StorageSetup,
  seedTeam,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

export function describeApprovalStorageContract(name: string, setup: StorageSetup): void {
  describe(`${name}: approval storage`, () => {
    const storage = useStorage(setup);
    const repos = () => storage().repos;

    /** A waiting post in a team, created by a member, with two pending targets. */
    async function waitingPost(overrides: Partial<PostWithTargets> = {}): Promise<PostWithTargets> {
      const owner = await seedUser(repos());
      const team = await seedTeam(repos(), owner.id);
      const post = makePost(team.id, owner.id, {
        platforms: ['twitter', 'linkedin'],
        post: {
          status: 'pending_approval',
          scheduledAt: plus(nextTime(), 3_600_000),
          ...overrides,
        },
      });
      await repos().posts.insert(post);
      return post;
    }

    const decision = (post: PostWithTargets, fields: Partial<ApprovalDecision>) => ({
      postId: post.id,
      to: 'scheduled' as const,
      rejectionReason: null,
      seenUpdatedAt: post.updatedAt,
      at: nextTime(),
      ...fields,
    });

    it('a team starts without approval; the setting is stored and read back', async () => {
      const owner = await seedUser(repos());
      const team = await seedTeam(repos(), owner.id);
      expect((await repos().accounts.findAccountById(team.id))?.approvalRequired).toBe(false);
      expect(await repos().accounts.setApprovalRequired(team.id, true)).toBe(true);
      expect((await repos().accounts.findAccountById(team.id))?.approvalRequired).toBe(true);
      const [listed] = await repos().accounts.listTeamsOfUser(owner.id);
      expect(listed?.account.approvalRequired).toBe(true);
      expect(await repos().accounts.setApprovalRequired(team.id, false)).toBe(true);
      expect((await repos().accounts.findAccountById(team.id))?.approvalRequired).toBe(false);
    });

    it('a personal account never takes the setting', async () => {
      const user = await seedUser(repos());
      expect(await repos().accounts.setApprovalRequired(user.id, true)).toBe(false);
      expect((await repos().accounts.findAccountById(user.id))?.approvalRequired).toBe(false);
    });

    it('a waiting post is stored as it is, rejection reason null', async () => {
      const post = await waitingPost();
      expect(await repos().posts.findById(post.id)).toEqual(post);
    });

    it('approving moves a waiting post to the status asked, once', async () => {
      const post = await waitingPost();
      const at = nextTime();
      expect(await repos().posts.decideApproval(decision(post, { at }))).toBe(true);
      const approved = await repos().posts.findById(post.id);
      expect(approved).toMatchObject({ status: 'scheduled', rejectionReason: null, updatedAt: at });
      expect(approved?.targets.map((target) => target.status)).toEqual(['pending', 'pending']);
      // Decided already: a second decision (approve or reject) does not apply.
      const again = decision(post, { seenUpdatedAt: at, to: 'rejected', rejectionReason: 'no' });
      expect(await repos().posts.decideApproval(again)).toBe(false);
      expect((await repos().posts.findById(post.id))?.status).toBe('scheduled');
    });

    it('rejecting stores the reason and cancels the pending targets', async () => {
      const post = await waitingPost();
      const rejected = decision(post, { to: 'rejected', rejectionReason: 'off-brand ✋' });
      expect(await repos().posts.decideApproval(rejected)).toBe(true);
      const stored = await repos().posts.findById(post.id);
      expect(stored).toMatchObject({ status: 'rejected', rejectionReason: 'off-brand ✋' });
      expect(stored?.targets.map((target) => target.status)).toEqual(['cancelled', 'cancelled']);
    });

    it('a decision on another version of the post (edited meanwhile) does not apply', async () => {
      const post = await waitingPost();
      const stale = decision(post, { seenUpdatedAt: plus(post.updatedAt, -1) });
      expect(await repos().posts.decideApproval(stale)).toBe(false);
      expect((await repos().posts.findById(post.id))?.status).toBe('pending_approval');
    });

    it('a decision on a post that does not wait (or does not exist) does not apply', async () => {
      const post = await waitingPost();
      expect(
        await repos().posts.transitionStatus(
          post.id,
          ['pending_approval'],
          'cancelled',
          nextTime(),
        ),
      ).toBe(true);
      const cancelled = await repos().posts.findById(post.id);
      const late = decision(post, { seenUpdatedAt: cancelled?.updatedAt as Date });
      expect(await repos().posts.decideApproval(late)).toBe(false);
      expect((await repos().posts.findById(post.id))?.status).toBe('cancelled');
      const missing = { ...late, postId: '01900000-0000-7000-8000-00000000dead' };
      expect(await repos().posts.decideApproval(missing)).toBe(false);
    });

    it('of two decisions racing on one version, exactly one applies', async () => {
      const post = await waitingPost();
      const results = await Promise.all([
        repos().posts.decideApproval(decision(post, {})),
        repos().posts.decideApproval(decision(post, { to: 'rejected', rejectionReason: 'no' })),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const status = (await repos().posts.findById(post.id))?.status;
      expect(status).toBe(results[0] ? 'scheduled' : 'rejected');
    });

    it('an edit and a decision racing on one version: exactly one applies', async () => {
      for (const to of ['scheduled', 'rejected'] as const) {
        const post = await waitingPost();
        const edit = {
          postId: post.id,
          from: ['pending_approval'] as const,
          content: 'raced',
          mediaUrls: post.mediaUrls,
          platformOptions: post.platformOptions,
          thread: [],
          firstComment: null,
          scheduledAt: post.scheduledAt,
          status: 'pending_approval' as const,
          // An edit always moves the version on (editPost makes it so).
          at: plus(post.updatedAt, 1),
          removeTargetIds: [],
          addTargets: [],
        };
        const reason = to === 'rejected' ? 'no' : null;
        const [edited, decided] = await Promise.all([
          repos().posts.applyEdit(edit),
          repos().posts.decideApproval(decision(post, { to, rejectionReason: reason })),
        ]);
        expect(edited !== decided).toBe(true);
        const stored = await repos().posts.findById(post.id);
        expect(stored?.status).toBe(decided ? to : 'pending_approval');
        expect(stored?.content).toBe(edited ? 'raced' : post.content);
      }
    });

    it('a waiting post is never due and never started, whatever its time', async () => {
      const post = await waitingPost({ scheduledAt: ancient(60) });
      const now = nextTime();
      const due = await repos().posts.findDuePosts(plus(now, 86_400_000), 1_000);
      expect(due.map((candidate) => candidate.id)).not.toContain(post.id);
      const start = await repos().posts.startPublish(post.id, {
        now,
        startBefore: plus(now, 86_400_000),
        leaseExpiresAt: plus(now, 60_000),
      });
      expect(start?.started).toBe(false);
      expect(start?.claims).toEqual([]);
      expect((await repos().posts.findById(post.id))?.status).toBe('pending_approval');
    });

    it('an edit applies from pending_approval only when asked to', async () => {
      const post = await waitingPost();
      const edit = {
        postId: post.id,
        content: 'edited',
        mediaUrls: post.mediaUrls,
        platformOptions: post.platformOptions,
        thread: [],
        firstComment: null,
        scheduledAt: post.scheduledAt,
        status: 'pending_approval' as const,
        at: nextTime(),
        removeTargetIds: [],
        addTargets: [],
      };
      expect(await repos().posts.applyEdit({ ...edit, from: ['scheduled', 'queued'] })).toBe(false);
      expect(await repos().posts.applyEdit({ ...edit, from: ['pending_approval'] })).toBe(true);
      expect(await repos().posts.findById(post.id)).toMatchObject({
        content: 'edited',
        status: 'pending_approval',
      });
    });

    it('lists by status: the creator filter, and every creator of the accounts asked', async () => {
      const owner = await seedUser(repos());
      const member = await seedUser(repos());
      const team = await seedTeam(repos(), owner.id);
      const other = await seedTeam(repos(), owner.id);
      const make = (accountId: string, by: string, status: PostWithTargets['status']) =>
        makePost(accountId, by, { post: { status, scheduledAt: plus(nextTime(), 60_000) } });
      const mine = make(team.id, owner.id, 'pending_approval');
      const theirs = make(team.id, member.id, 'pending_approval');
      const newer = make(team.id, member.id, 'pending_approval');
      const scheduled = make(team.id, member.id, 'scheduled');
      const elsewhere = make(other.id, member.id, 'pending_approval');
      for (const post of [mine, theirs, newer, scheduled, elsewhere]) {
        await repos().posts.insert(post);
      }
      const ids = (posts: PostWithTargets[]) => posts.map((post) => post.id);
      expect(ids(await repos().posts.listByStatus([team.id], 'pending_approval'))).toEqual([
        newer.id,
        theirs.id,
        mine.id,
      ]);
      const firstPage = await repos().posts.listByStatus([team.id], 'pending_approval', {
        limit: 1,
      });
      expect(ids(firstPage)).toEqual([newer.id]);
      const next = await repos().posts.listByStatus([team.id], 'pending_approval', {
        limit: 5,
        before: { createdAt: newer.createdAt, id: newer.id },
      });
      expect(ids(next)).toEqual([theirs.id, mine.id]);
      expect((await repos().posts.listByStatus([team.id], 'pending_approval'))[0]).toEqual(newer);
      expect(await repos().posts.listByStatus([], 'pending_approval')).toEqual([]);
      const ofMember = await repos().posts.listByCreator(
        member.id,
        [team.id, other.id],
        undefined,
        'pending_approval',
      );
      expect(ids(ofMember)).toEqual([elsewhere.id, newer.id, theirs.id]);
      const scheduledOnly = await repos().posts.listByCreator(
        member.id,
        [team.id],
        { limit: 10 },
        'scheduled',
      );
      expect(ids(scheduledOnly)).toEqual([scheduled.id]);
    });
  });
}
