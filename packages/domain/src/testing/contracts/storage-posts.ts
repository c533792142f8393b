/**
 * Contract of PostRepository: posts with their targets, conditional status transitions and
 * the target claim/lease protocol that keeps two workers from publishing the same target.
 *
 *   import { describePostRepositoryContract } from '@social-publisher/domain/contracts/storage-posts';
 */
import { describe, expect, it } from 'vitest';
import type { PostTarget, PostWithTargets } from '../../model.ts';
import type { PostEdit, PublishStart } from '../../ports/index.ts';
import {
  ancient,
  makePost,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  seedTeam,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

const LEASE_MS = 60_000;

export function describePostRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: PostRepository`, () => {
    const storage = useStorage(setup);
    const posts = () => storage().repos.posts;

    /** A stored post whose first target is claimed (`publishing`) at `now`. */
    async function claimedTarget(now = nextTime()): Promise<{
      post: PostWithTargets;
      target: PostTarget;
      now: Date;
    }> {
      const post = await seedPost(storage().repos, { platforms: ['tiktok', 'youtube'] });
      const id = post.targets[0]?.id ?? '';
      const target = await storage().testing.claimTarget(id, plus(now, LEASE_MS), now, false);
      if (!target) throw new Error('claim failed');
      return { post, target, now };
    }

    const targetOf = async (postId: string, targetId: string) =>
      (await posts().findById(postId))?.targets.find((target) => target.id === targetId);

    describe('insert, findById, listByCreator', () => {
      it('stores a post with its targets and finds it by id, targets in order', async () => {
        const user = await seedUser(storage().repos);
        const post = makePost(user.id, user.id, {
          platforms: ['youtube', 'tiktok', 'instagram'],
          post: {
            content: 'Émojis 🎉 and "quotes"',
            mediaUrls: ['https://cdn.example.test/a.mp4', 'https://cdn.example.test/b.jpg'],
            platformOptions: {
              tiktok: { tiktokPrivacy: 'PUBLIC_TO_EVERYONE', tiktokAllowDuet: true },
              youtube: { title: 'A title', tags: ['x', 'y'], nested: { n: 1 } },
            },
            scheduledAt: plus(nextTime(), 3_600_000),
            status: 'scheduled',
          },
        });
        await posts().insert(post);
        expect(await posts().findById(post.id)).toEqual(post);
      });

      it('stores an empty post without media or options', async () => {
        const user = await seedUser(storage().repos);
        const post = makePost(user.id, user.id, {
          post: { content: '', mediaUrls: [], platformOptions: {} },
          platforms: ['twitter'],
        });
        await posts().insert(post);
        expect(await posts().findById(post.id)).toEqual(post);
      });

      it('returns null for an unknown post', async () => {
        expect(await posts().findById(newId())).toBeNull();
      });

      it("lists a creator's posts newest first, each with its own targets", async () => {
        const user = await seedUser(storage().repos);
        const other = await seedUser(storage().repos);
        const first = makePost(user.id, user.id, { platforms: ['tiktok'] });
        const second = makePost(user.id, user.id, { platforms: ['youtube', 'instagram'] });
        const third = makePost(user.id, user.id, { platforms: ['facebook'] });
        // Inserted out of order: the listing is ordered by createdAt.
        for (const post of [second, third, first]) await posts().insert(post);
        await seedPost(storage().repos, { userId: other.id });

        expect(await posts().listByCreator(user.id, [user.id])).toEqual([third, second, first]);
        expect(await posts().listByCreator(newId(), [user.id])).toEqual([]);
      });

      it('lists only the posts in the accounts asked for', async () => {
        const user = await seedUser(storage().repos);
        const team = await seedTeam(storage().repos, user.id);
        const left = await seedTeam(storage().repos, user.id);
        const personal = await seedPost(storage().repos, { userId: user.id });
        const inTeam = await seedPost(storage().repos, { userId: user.id, accountId: team.id });
        // Created by the user in an account not asked for (e.g. a team the user has left).
        await seedPost(storage().repos, { userId: user.id, accountId: left.id });
        expect(await posts().listByCreator(user.id, [team.id])).toEqual([inTeam]);
        expect(await posts().listByCreator(user.id, [user.id])).toEqual([personal]);
        expect(await posts().listByCreator(user.id, [user.id, team.id])).toEqual([
          inTeam,
          personal,
        ]);
        expect(await posts().listByCreator(user.id, [])).toEqual([]);
        expect(await posts().listByCreator(user.id, [user.id, team.id], { limit: 10 })).toEqual([
          inTeam,
          personal,
        ]);
      });

      it('takes the 50 or so accounts of a user in one call', async () => {
        const user = await seedUser(storage().repos);
        const teams = [];
        for (let i = 0; i < 50; i++) teams.push(await seedTeam(storage().repos, user.id));
        const made = [];
        for (const team of teams.slice(0, 5))
          made.push(await seedPost(storage().repos, { userId: user.id, accountId: team.id }));
        const accounts = [user.id, ...teams.map((team) => team.id)];
        expect(await posts().listByCreator(user.id, accounts)).toEqual([...made].reverse());
        expect(await posts().listByCreator(user.id, accounts.slice(0, 3))).toEqual(
          made.slice(0, 2).reverse(),
        );
      });

      it('lists posts of other users in the account only by their creator', async () => {
        const owner = await seedUser(storage().repos);
        const member = await seedUser(storage().repos);
        const team = await seedTeam(storage().repos, owner.id);
        const byMember = await seedPost(storage().repos, { userId: member.id, accountId: team.id });
        expect(await posts().listByCreator(owner.id, [team.id])).toEqual([]);
        expect(await posts().listByCreator(member.id, [team.id])).toEqual([byMember]);
      });

      describe('pages (keyset on created_at desc, id desc)', () => {
        /** Every page of `limit` posts, each page starting after the last post of the one before. */
        async function allPages(createdBy: string, limit: number, accountIds = [createdBy]) {
          const pages: PostWithTargets[][] = [];
          let before: { createdAt: Date; id: string } | undefined;
          for (;;) {
            const page = await posts().listByCreator(createdBy, accountIds, {
              limit,
              ...(before ? { before } : {}),
            });
            pages.push(page);
            const last = page.at(-1);
            if (page.length < limit || !last) return pages;
            before = { createdAt: last.createdAt, id: last.id };
          }
        }

        it('cover every post exactly once, in order, with targets; limit respected', async () => {
          const user = await seedUser(storage().repos);
          const other = await seedUser(storage().repos);
          const made = Array.from({ length: 5 }, () =>
            makePost(user.id, user.id, { platforms: ['tiktok', 'youtube'] }),
          );
          for (const post of [...made].reverse()) await posts().insert(post);
          await seedPost(storage().repos, { userId: other.id });
          const expected = [...made].reverse();

          const pages = await allPages(user.id, 2);
          expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
          expect(pages.flat()).toEqual(expected);
          expect(await posts().listByCreator(user.id, [user.id], { limit: 10 })).toEqual(expected);
          expect(await posts().listByCreator(user.id, [user.id], { limit: 1 })).toEqual(
            expected.slice(0, 1),
          );
          // Exactly one page's worth: the page after it is empty.
          expect((await allPages(user.id, 5)).map((page) => page.length)).toEqual([5, 0]);
        });

        it('split posts that share created_at by id, none lost or repeated', async () => {
          const user = await seedUser(storage().repos);
          const at = nextTime();
          const tied = Array.from({ length: 5 }, () =>
            makePost(user.id, user.id, { post: { createdAt: at } }),
          );
          const older = makePost(user.id, user.id, { post: { createdAt: plus(at, -1_000) } });
          const newer = makePost(user.id, user.id, { post: { createdAt: plus(at, 1_000) } });
          for (const post of [...tied, older, newer]) await posts().insert(post);
          const expected = [
            newer,
            ...[...tied].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)),
            older,
          ];
          expect(await posts().listByCreator(user.id, [user.id])).toEqual(expected);
          for (const limit of [1, 2, 3])
            expect((await allPages(user.id, limit)).flat()).toEqual(expected);
          const middle = expected[3];
          if (!middle) throw new Error('no middle post');
          expect(
            await posts().listByCreator(user.id, [user.id], {
              limit: 10,
              before: { createdAt: middle.createdAt, id: middle.id },
            }),
          ).toEqual(expected.slice(4));
        });

        it('page within one account, and after a position no post holds', async () => {
          const user = await seedUser(storage().repos);
          const team = await seedTeam(storage().repos, user.id);
          const personal = await seedPost(storage().repos, { userId: user.id });
          const inTeam = [
            await seedPost(storage().repos, { userId: user.id, accountId: team.id }),
            await seedPost(storage().repos, { userId: user.id, accountId: team.id }),
          ].reverse();
          expect((await allPages(user.id, 1, [team.id])).flat()).toEqual(inTeam);
          expect((await allPages(user.id, 1, [user.id])).flat()).toEqual([personal]);
          const between = inTeam[0];
          if (!between) throw new Error('no post');
          expect(
            await posts().listByCreator(user.id, [user.id, team.id], {
              limit: 10,
              before: { createdAt: plus(between.createdAt, -1), id: newId() },
            }),
          ).toEqual([inTeam[1], personal]);
        });
      });

      it('returns copies', async () => {
        const post = await seedPost(storage().repos);
        const stored = structuredClone(post);
        post.content = 'mutated after insert';
        post.mediaUrls.push('https://mutated.example.test');
        if (post.targets[0]) post.targets[0].status = 'failed';
        const found = await posts().findById(post.id);
        expect(found).toEqual(stored);
        if (found?.targets[0]) found.targets[0].status = 'published';
        found?.targets.pop();
        expect(await posts().findById(post.id)).toEqual(stored);
        const listed = await posts().listByCreator(post.createdBy, [post.accountId]);
        if (listed[0]) listed[0].status = 'failed';
        expect(await posts().listByCreator(post.createdBy, [post.accountId])).toEqual([stored]);
      });
    });

    describe('transitionStatus', () => {
      it('applies only from one of the given statuses', async () => {
        const post = await seedPost(storage().repos, { post: { status: 'queued' } });
        const at = nextTime();
        expect(await posts().transitionStatus(post.id, ['scheduled'], 'cancelled', at)).toBe(false);
        expect((await posts().findById(post.id))?.status).toBe('queued');

        expect(
          await posts().transitionStatus(post.id, ['scheduled', 'queued'], 'publishing', at),
        ).toBe(true);
        const found = await posts().findById(post.id);
        expect(found?.status).toBe('publishing');
        expect(found?.updatedAt).toEqual(at);

        expect(await posts().transitionStatus(post.id, ['queued'], 'cancelled', nextTime())).toBe(
          false,
        );
        expect(await posts().transitionStatus(post.id, [], 'failed', nextTime())).toBe(false);
        expect(await posts().transitionStatus(newId(), ['queued'], 'failed', nextTime())).toBe(
          false,
        );
      });

      it('of concurrent transitions from the same status exactly one applies', async () => {
        const post = await seedPost(storage().repos, { post: { status: 'queued' } });
        const at = nextTime();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            posts().transitionStatus(
              post.id,
              ['queued'],
              index % 2 === 0 ? 'publishing' : 'cancelled',
              at,
            ),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('concurrent transitions of different posts each apply by their own statuses', async () => {
        const statuses = ['queued', 'scheduled', 'publishing', 'queued', 'publishing'] as const;
        const seeded = await Promise.all(
          statuses.map((status) => seedPost(storage().repos, { post: { status } })),
        );
        const times = seeded.map(() => nextTime());
        const moves = [
          { from: ['queued'], to: 'cancelled' },
          { from: ['queued'], to: 'cancelled' }, // scheduled: not from its status
          { from: ['publishing'], to: 'published' },
          { from: ['scheduled', 'queued'], to: 'publishing' },
          { from: ['publishing'], to: 'partial' },
        ] as const;
        const results = await Promise.all(
          seeded.map((post, index) => {
            const move = moves[index] as (typeof moves)[number];
            return posts().transitionStatus(post.id, move.from, move.to, times[index] as Date);
          }),
        );
        expect(results).toEqual([true, false, true, true, true]);
        const found = await Promise.all(seeded.map((post) => posts().findById(post.id)));
        expect(found.map((post) => post?.status)).toEqual([
          'cancelled',
          'scheduled',
          'published',
          'publishing',
          'partial',
        ]);
        expect(found[0]?.updatedAt).toEqual(times[0]);
        expect(found[1]?.updatedAt).toEqual(seeded[1]?.updatedAt);
        expect(found[4]?.updatedAt).toEqual(times[4]);
      });
    });

    describe('claimTarget (one target, test kit)', () => {
      it('claims a pending target: publishing, attempts + 1, lease set', async () => {
        const post = await seedPost(storage().repos, { platforms: ['tiktok', 'youtube'] });
        const [first, second] = post.targets;
        const now = nextTime();
        const lease = plus(now, LEASE_MS);
        const claimed = await storage().testing.claimTarget(first?.id ?? '', lease, now, false);
        const expected = {
          ...first,
          status: 'publishing',
          attempts: 1,
          leaseExpiresAt: lease,
          updatedAt: now,
        };
        expect(claimed).toEqual(expected);
        expect(await posts().findById(post.id)).toEqual({ ...post, targets: [expected, second] });
      });

      it('a claimed target cannot be claimed again while its lease runs', async () => {
        const { target, now } = await claimedTarget();
        const later = plus(now, 1_000);
        expect(
          await storage().testing.claimTarget(target.id, plus(later, LEASE_MS), later, false),
        ).toBeNull();
        expect(
          await storage().testing.claimTarget(target.id, plus(later, LEASE_MS), later, true),
        ).toBeNull();
      });

      it('an expired lease is taken over only when allowed', async () => {
        const { post, target, now } = await claimedTarget();
        const afterExpiry = plus(now, LEASE_MS + 1_000);
        const newLease = plus(afterExpiry, LEASE_MS);
        expect(
          await storage().testing.claimTarget(target.id, newLease, afterExpiry, false),
        ).toBeNull();
        const taken = await storage().testing.claimTarget(target.id, newLease, afterExpiry, true);
        expect(taken).toEqual({
          ...target,
          attempts: 2,
          leaseExpiresAt: newLease,
          updatedAt: afterExpiry,
        });
        expect(await targetOf(post.id, target.id)).toEqual(taken);
      });

      it('a finished, cancelled or unknown target cannot be claimed', async () => {
        const { post, target, now } = await claimedTarget();
        await posts().completeTarget(target.id, {
          status: 'published',
          platformPostId: 'p-1',
          platformUrl: null,
          at: plus(now, 10),
        });
        const later = plus(now, LEASE_MS * 10);
        expect(
          await storage().testing.claimTarget(target.id, plus(later, LEASE_MS), later, true),
        ).toBeNull();

        await posts().cancelPendingTargets(post.id, later);
        const cancelled = post.targets[1]?.id ?? '';
        expect(
          await storage().testing.claimTarget(cancelled, plus(later, LEASE_MS), later, true),
        ).toBeNull();
        expect(
          await storage().testing.claimTarget(newId(), plus(later, LEASE_MS), later, true),
        ).toBeNull();
      });

      it('of concurrent claims on one target exactly one wins', async () => {
        const post = await seedPost(storage().repos);
        const id = post.targets[0]?.id ?? '';
        const now = nextTime();
        const claims = await Promise.all(
          Array.from({ length: 10 }, () =>
            storage().testing.claimTarget(id, plus(now, LEASE_MS), now, true),
          ),
        );
        expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
        expect((await targetOf(post.id, id))?.attempts).toBe(1);
      });
    });

    describe('startPublish', () => {
      const startAt = (now: Date, lease = plus(now, LEASE_MS)) => ({
        now,
        startBefore: now,
        leaseExpiresAt: lease,
      });

      it('moves the post to publishing and claims every pending target in stored order', async () => {
        const post = await seedPost(storage().repos, {
          platforms: ['tiktok', 'youtube', 'instagram'],
        });
        const other = await seedPost(storage().repos);
        const now = nextTime();
        const lease = plus(now, LEASE_MS);
        const start = await posts().startPublish(post.id, startAt(now, lease));
        const claimed = post.targets.map((target) => ({
          ...target,
          status: 'publishing' as const,
          attempts: 1,
          leaseExpiresAt: lease,
          updatedAt: now,
        }));
        expect(start).toEqual({
          post: { ...post, status: 'publishing', updatedAt: now, targets: claimed },
          started: true,
          previousStatus: 'queued',
          claims: claimed.map((target) => ({ target, takenOver: false })),
        });
        expect(await posts().findById(post.id)).toEqual(start?.post);
        const again = await posts().startPublish(post.id, startAt(now, lease));
        expect(again).toMatchObject({ started: true, previousStatus: 'publishing', claims: [] });
        expect(again?.post).toEqual(start?.post);
        expect((await posts().findById(other.id))?.targets[0]?.status).toBe('pending');
        expect(await posts().startPublish(newId(), startAt(now))).toBeNull();
      });

      it('leaves a post scheduled after startBefore, or finished, as it is', async () => {
        const now = nextTime();
        const later = await seedPost(storage().repos, {
          post: { status: 'scheduled', scheduledAt: plus(now, 1_000) },
        });
        const early = await posts().startPublish(later.id, startAt(now));
        expect(early).toEqual({
          post: later,
          started: false,
          previousStatus: 'scheduled',
          claims: [],
        });
        expect(await posts().findById(later.id)).toEqual(later);
        const due = await posts().startPublish(later.id, {
          ...startAt(now),
          startBefore: plus(now, 1_000),
        });
        expect(due).toMatchObject({ started: true, previousStatus: 'scheduled' });
        expect(due?.claims).toHaveLength(1);

        for (const status of ['cancelled', 'published', 'failed', 'partial'] as const) {
          const finished = await seedPost(storage().repos, { post: { status } });
          expect(await posts().startPublish(finished.id, startAt(nextTime()))).toEqual({
            post: finished,
            started: false,
            previousStatus: status,
            claims: [],
          });
        }
      });

      it('takes over run-out leases, and skips live leases and finished targets', async () => {
        const { post, target, now } = await claimedTarget();
        const [, second] = post.targets;
        if (!second) throw new Error('no second target');
        const first = await posts().startPublish(post.id, startAt(now));
        expect(first?.claims.map((c) => [c.target.id, c.takenOver])).toEqual([[second.id, false]]);
        await posts().completeTarget(second.id, {
          status: 'failed',
          errorCode: 'x',
          errorMessage: 'x',
          retryable: false,
          at: now,
        });
        const beforeExpiry = plus(now, LEASE_MS - 1_000);
        expect((await posts().startPublish(post.id, startAt(beforeExpiry)))?.claims).toEqual([]);
        const afterExpiry = plus(now, LEASE_MS + 1_000);
        const newLease = plus(afterExpiry, LEASE_MS);
        const takeover = await posts().startPublish(post.id, startAt(afterExpiry, newLease));
        expect(takeover?.claims).toEqual([
          {
            target: { ...target, attempts: 2, leaseExpiresAt: newLease, updatedAt: afterExpiry },
            takenOver: true,
          },
        ]);
        expect(takeover?.post.targets.map((t) => t.status)).toEqual(['publishing', 'failed']);
      });

      it('of 20 concurrent starts on one post each target is claimed exactly once', async () => {
        const post = await seedPost(storage().repos, {
          platforms: ['tiktok', 'youtube', 'instagram', 'twitter', 'facebook'],
        });
        const now = nextTime();
        const results = await Promise.all(
          Array.from({ length: 20 }, () => posts().startPublish(post.id, startAt(now))),
        );
        const claimed = results.flatMap((start) => start?.claims ?? []).map((c) => c.target.id);
        expect(claimed.sort()).toEqual(post.targets.map((target) => target.id).sort());
        expect(results.every((start) => start?.started)).toBe(true);
        const stored = (await posts().findById(post.id))?.targets ?? [];
        expect(stored.map((target) => target.attempts)).toEqual([1, 1, 1, 1, 1]);
      });

      it('concurrent starts of many posts each claim their own post only', async () => {
        const seeded = await Promise.all(
          Array.from({ length: 12 }, () =>
            seedPost(storage().repos, { platforms: ['tiktok', 'youtube'] }),
          ),
        );
        const now = nextTime();
        const starts = await Promise.all(
          [...seeded, ...seeded].map((post) => posts().startPublish(post.id, startAt(now))),
        );
        for (const [index, post] of seeded.entries()) {
          const mine = [starts[index], starts[index + seeded.length]];
          const claims = mine.flatMap((start) => start?.claims ?? []);
          expect(claims.map((c) => c.target.postId)).toEqual([post.id, post.id]);
          expect(mine.every((start) => start?.post.id === post.id)).toBe(true);
        }
      });

      it('a post cancelled first is not started', async () => {
        const post = await seedPost(storage().repos);
        const now = nextTime();
        await posts().transitionStatus(post.id, ['queued'], 'cancelled', now);
        await posts().cancelPendingTargets(post.id, now);
        const start = await posts().startPublish(post.id, startAt(plus(now, 1)));
        expect(start).toMatchObject({ started: false, previousStatus: 'cancelled', claims: [] });
        expect(start?.post.targets[0]?.status).toBe('cancelled');
      });
    });

    describe('applyEdit', () => {
      const EDITABLE = ['scheduled', 'queued'] as const;
      /** The edit of a stored post that changes nothing but what `changes` says. */
      const editOf = (post: PostWithTargets, changes: Partial<PostEdit> = {}): PostEdit => ({
        postId: post.id,
        from: EDITABLE,
        content: post.content,
        mediaUrls: post.mediaUrls,
        platformOptions: post.platformOptions,
        thread: post.thread,
        firstComment: post.firstComment,
        scheduledAt: post.scheduledAt,
        status: post.status,
        at: nextTime(),
        removeTargetIds: [],
        addTargets: [],
        ...changes,
      });

      it('changes the fields, removes targets and adds new ones after the others', async () => {
        const post = await seedPost(storage().repos, {
          platforms: ['tiktok', 'youtube', 'instagram'],
          post: { status: 'scheduled', scheduledAt: plus(nextTime(), 60_000) },
        });
        const [first, second, third] = post.targets;
        if (!first || !second || !third) throw new Error('three targets expected');
        const added = makePost(post.accountId, post.createdBy, {
          post: { id: post.id },
          platforms: ['twitter', 'facebook'],
        }).targets;
        const at = nextTime();
        const scheduledAt = plus(at, 3_600_000);
        const edit = editOf(post, {
          content: 'edited ✏️',
          mediaUrls: ['https://cdn.example.test/other.jpg'],
          platformOptions: { twitter: { replyToTweetId: '1' } },
          thread: [{ content: 'and then 🧵', mediaUrls: ['https://cdn.example.test/t.jpg'] }],
          firstComment: 'first!',
          scheduledAt,
          at,
          removeTargetIds: [second.id],
          addTargets: added,
        });
        expect(await posts().applyEdit(edit)).toBe(true);
        expect(await posts().findById(post.id)).toEqual({
          ...post,
          content: 'edited ✏️',
          mediaUrls: ['https://cdn.example.test/other.jpg'],
          platformOptions: { twitter: { replyToTweetId: '1' } },
          thread: [{ content: 'and then 🧵', mediaUrls: ['https://cdn.example.test/t.jpg'] }],
          firstComment: 'first!',
          scheduledAt,
          updatedAt: at,
          targets: [first, third, ...added],
        });
      });

      it('applies only from the given statuses and then changes nothing', async () => {
        for (const status of ['publishing', 'published', 'cancelled'] as const) {
          const post = await seedPost(storage().repos, { post: { status } });
          const added = makePost(post.accountId, post.createdBy, { post: { id: post.id } });
          const edit = editOf(post, {
            content: 'too late',
            removeTargetIds: post.targets.map((target) => target.id),
            addTargets: added.targets,
          });
          expect(await posts().applyEdit(edit)).toBe(false);
          expect(await posts().findById(post.id)).toEqual(post);
        }
        expect(await posts().applyEdit(editOf(makePost(newId(), newId())))).toBe(false);
      });

      it('never removes a target that is no longer pending', async () => {
        const { post, target } = await claimedTarget();
        await posts().transitionStatus(post.id, ['queued'], 'queued', nextTime());
        expect(await posts().applyEdit(editOf(post, { removeTargetIds: [target.id] }))).toBe(true);
        expect((await posts().findById(post.id))?.targets.map((t) => t.id)).toContain(target.id);
      });

      it('racing a publish start: the post is either started as it was, or edited and not started', async () => {
        const now = nextTime();
        const seeded = await Promise.all(
          Array.from({ length: 16 }, () =>
            seedPost(storage().repos, {
              platforms: ['tiktok', 'youtube'],
              post: { status: 'scheduled', scheduledAt: now },
            }),
          ),
        );
        const later = plus(now, 3_600_000);
        const outcomes = await Promise.all(
          seeded.map(async (post, index) => {
            const edit = editOf(post, { scheduledAt: later, content: 'moved' });
            const start = () =>
              posts().startPublish(post.id, {
                now,
                startBefore: now,
                leaseExpiresAt: plus(now, LEASE_MS),
              });
            // Half the pairs send the start first, half the edit.
            const [started, edited] =
              index % 2 === 0
                ? await Promise.all([start(), posts().applyEdit(edit)])
                : (await Promise.all([posts().applyEdit(edit), start()])).reverse();
            return { post, started: (started as PublishStart | null)?.started, edited };
          }),
        );
        for (const { post, started, edited } of outcomes) {
          expect(started !== edited, `post ${post.id}: started ${started}, edited ${edited}`).toBe(
            true,
          );
          const stored = await posts().findById(post.id);
          if (edited) {
            expect(stored).toMatchObject({
              status: 'scheduled',
              scheduledAt: later,
              content: 'moved',
            });
            expect(stored?.targets.every((target) => target.status === 'pending')).toBe(true);
          } else {
            expect(stored).toMatchObject({
              status: 'publishing',
              scheduledAt: now,
              content: 'hello',
            });
          }
        }
      });

      it('racing a publish start of a due post: the run publishes what the edit left', async () => {
        const now = nextTime();
        const seeded = await Promise.all(
          Array.from({ length: 16 }, () =>
            seedPost(storage().repos, {
              platforms: ['tiktok', 'youtube'],
              post: { status: 'scheduled', scheduledAt: now },
            }),
          ),
        );
        const runs = await Promise.all(
          seeded.map(async (post) => {
            const [removed] = post.targets;
            const edit = editOf(post, { content: 'edited', removeTargetIds: [removed?.id ?? ''] });
            const [edited, start] = await Promise.all([
              posts().applyEdit(edit),
              posts().startPublish(post.id, {
                now,
                startBefore: now,
                leaseExpiresAt: plus(now, LEASE_MS),
              }),
            ]);
            return { post, edited, start };
          }),
        );
        for (const { post, edited, start } of runs) {
          const stored = await posts().findById(post.id);
          expect(start?.started).toBe(true);
          if (!edited) continue;
          // The edit came first: the run sees it, content and targets alike.
          expect(start?.post.content).toBe('edited');
          expect(start?.claims.map((claim) => claim.target.id)).toEqual([post.targets[1]?.id]);
          expect(stored?.targets.map((target) => target.id)).toEqual([post.targets[1]?.id]);
        }
      });
    });

    describe('leases, resume state, release and completion', () => {
      it('renews the lease of a publishing target only', async () => {
        const { post, target, now } = await claimedTarget();
        const renewedAt = plus(now, 30_000);
        const lease = plus(renewedAt, LEASE_MS);
        expect(await posts().renewLease(target.id, lease, renewedAt)).toBe(true);
        expect((await targetOf(post.id, target.id))?.leaseExpiresAt).toEqual(lease);

        const pending = post.targets[1]?.id ?? '';
        expect(await posts().renewLease(pending, lease, renewedAt)).toBe(false);
        expect((await targetOf(post.id, pending))?.leaseExpiresAt).toBeNull();
        expect(await posts().renewLease(newId(), lease, renewedAt)).toBe(false);
      });

      it('saves the resume state and extends the lease', async () => {
        const { post, target, now } = await claimedTarget();
        const at = plus(now, 5_000);
        const lease = plus(at, LEASE_MS);
        const state = { publishId: 'v_pub_123', attempt: 2, nested: { ok: true, list: [1, 'a'] } };
        await posts().saveResumeState(target.id, state, lease, at);
        expect(await targetOf(post.id, target.id)).toEqual({
          ...target,
          resumeState: state,
          leaseExpiresAt: lease,
          updatedAt: at,
        });
      });

      it('keeps the resume state across a release and the next claim', async () => {
        const { post, target, now } = await claimedTarget();
        const state = { containerId: '17890' };
        await posts().saveResumeState(target.id, state, plus(now, LEASE_MS), plus(now, 1));
        await posts().releaseTarget(target.id, null, plus(now, 2));
        const again = plus(now, 3);
        const claimed = await storage().testing.claimTarget(
          target.id,
          plus(again, LEASE_MS),
          again,
          false,
        );
        expect(claimed?.resumeState).toEqual(state);
        expect(claimed?.attempts).toBe(2);
        expect((await targetOf(post.id, target.id))?.resumeState).toEqual(state);
      });

      it('releases a claimed target back to pending, keeping the error', async () => {
        const { post, target, now } = await claimedTarget();
        const at = plus(now, 2_000);
        await posts().releaseTarget(
          target.id,
          { errorCode: 'rate_limited', errorMessage: 'HTTP 429 from TikTok' },
          at,
        );
        const released = await targetOf(post.id, target.id);
        expect(released).toMatchObject({
          status: 'pending',
          attempts: 1,
          leaseExpiresAt: null,
          errorCode: 'rate_limited',
          errorMessage: 'HTTP 429 from TikTok',
          updatedAt: at,
        });
        const again = plus(at, 1_000);
        expect(
          (await storage().testing.claimTarget(target.id, plus(again, LEASE_MS), again, false))
            ?.attempts,
        ).toBe(2);
      });

      it('releases without an error (shutdown)', async () => {
        const { post, target, now } = await claimedTarget();
        await posts().releaseTarget(target.id, null, plus(now, 1));
        expect(await targetOf(post.id, target.id)).toMatchObject({
          status: 'pending',
          leaseExpiresAt: null,
          errorCode: null,
          errorMessage: null,
        });
      });

      it('records a published result once', async () => {
        const { post, target, now } = await claimedTarget();
        const at = plus(now, 3_000);
        const recorded = await posts().completeTarget(target.id, {
          status: 'published',
          platformPostId: '7312345678901234567',
          platformUrl: 'https://www.tiktok.com/@me/video/7312345678901234567',
          at,
        });
        const done = await targetOf(post.id, target.id);
        expect(recorded).toEqual(done);
        expect(done).toMatchObject({
          status: 'published',
          platformPostId: '7312345678901234567',
          platformUrl: 'https://www.tiktok.com/@me/video/7312345678901234567',
          publishedAt: at,
          updatedAt: at,
          attempts: 1,
        });
        expect(
          await posts().completeTarget(target.id, {
            status: 'failed',
            errorCode: 'late',
            errorMessage: 'too late',
            retryable: false,
            at: plus(at, 1),
          }),
        ).toBeNull();
        expect(await targetOf(post.id, target.id)).toEqual(done);
      });

      it('records a failed result with the platform error', async () => {
        const { post, target, now } = await claimedTarget();
        const at = plus(now, 3_000);
        const recorded = await posts().completeTarget(target.id, {
          status: 'failed',
          errorCode: 'spam_risk_too_many_posts',
          errorMessage: 'The user has posted too much today',
          retryable: false,
          at,
        });
        expect(recorded).toEqual(await targetOf(post.id, target.id));
        expect(recorded).toMatchObject({
          status: 'failed',
          errorCode: 'spam_risk_too_many_posts',
          errorMessage: 'The user has posted too much today',
          retryable: false,
          platformPostId: null,
          publishedAt: null,
          updatedAt: at,
        });
      });

      it('records a thread and first comment with the published result', async () => {
        const { post, target, now } = await claimedTarget();
        await posts().completeTarget(target.id, {
          status: 'published',
          platformPostId: 'main-1',
          platformUrl: null,
          threadPostIds: ['reply-1', 'reply-2'],
          firstCommentId: 'comment-1',
          at: plus(now, 3_000),
        });
        expect(await targetOf(post.id, target.id)).toMatchObject({
          platformPostId: 'main-1',
          threadPostIds: ['reply-1', 'reply-2'],
          firstCommentId: 'comment-1',
        });
      });

      it('a failure after the main post keeps what was published', async () => {
        const { post, target, now } = await claimedTarget();
        const recorded = await posts().completeTarget(target.id, {
          status: 'failed',
          errorCode: 'duplicate_content',
          errorMessage: 'refused',
          retryable: false,
          at: plus(now, 3_000),
          publishedSoFar: {
            platformPostId: 'main-2',
            platformUrl: 'https://x.com/i/web/status/main-2',
            threadPostIds: ['reply-3'],
          },
        });
        expect(recorded).toEqual(await targetOf(post.id, target.id));
        expect(recorded).toMatchObject({
          status: 'failed',
          errorCode: 'duplicate_content',
          platformPostId: 'main-2',
          platformUrl: 'https://x.com/i/web/status/main-2',
          threadPostIds: ['reply-3'],
          firstCommentId: null,
          publishedAt: null,
        });
      });

      it('stores a post with its thread and first comment', async () => {
        const user = await seedUser(storage().repos);
        const post = makePost(user.id, user.id, {
          post: {
            thread: [{ content: 'next', mediaUrls: ['https://cdn.example.test/a.jpg'] }],
            firstComment: 'first!',
          },
        });
        await posts().insert(post);
        expect(await posts().findById(post.id)).toMatchObject({
          thread: [{ content: 'next', mediaUrls: ['https://cdn.example.test/a.jpg'] }],
          firstComment: 'first!',
          targets: [{ threadPostIds: [], firstCommentId: null }],
        });
      });

      it('does not complete a target that is not publishing', async () => {
        const post = await seedPost(storage().repos);
        const id = post.targets[0]?.id ?? '';
        const completion = {
          status: 'published' as const,
          platformPostId: 'x',
          platformUrl: null,
          at: nextTime(),
        };
        expect(await posts().completeTarget(id, completion)).toBeNull();
        expect(await posts().findById(post.id)).toEqual(post);
        expect(await posts().completeTarget(newId(), completion)).toBeNull();
      });

      it('cancels only the pending targets of the post', async () => {
        const post = await seedPost(storage().repos, {
          platforms: ['tiktok', 'youtube', 'instagram'],
        });
        const other = await seedPost(storage().repos);
        const [publishing, published, pending] = post.targets;
        const now = nextTime();
        await storage().testing.claimTarget(publishing?.id ?? '', plus(now, LEASE_MS), now, false);
        await storage().testing.claimTarget(published?.id ?? '', plus(now, LEASE_MS), now, false);
        await posts().completeTarget(published?.id ?? '', {
          status: 'published',
          platformPostId: 'yt-1',
          platformUrl: null,
          at: now,
        });
        const at = plus(now, 1_000);
        await posts().cancelPendingTargets(post.id, at);

        const statuses = (await posts().findById(post.id))?.targets.map((t) => t.status);
        expect(statuses).toEqual(['publishing', 'published', 'cancelled']);
        expect(await targetOf(post.id, pending?.id ?? '')).toMatchObject({ updatedAt: at });
        expect(await posts().findById(other.id)).toEqual(other);
      });
    });

    describe('reconciler queries', () => {
      it('finds due posts ordered by coalesce(scheduledAt, createdAt), at most limit', async () => {
        const user = await seedUser(storage().repos);
        const seed = (post: Parameters<typeof makePost>[2]) =>
          seedPost(storage().repos, { userId: user.id, ...post });
        const until = ancient(1_000);
        const immediate = await seed({ post: { createdAt: ancient(30), status: 'queued' } });
        const dueScheduled = await seed({
          post: { createdAt: ancient(1), scheduledAt: ancient(20), status: 'scheduled' },
        });
        const running = await seed({ post: { createdAt: ancient(10), status: 'publishing' } });
        const dueAtUntil = await seed({
          post: { createdAt: ancient(2), scheduledAt: until, status: 'scheduled' },
        });
        const later = await seed({
          post: { createdAt: ancient(3), scheduledAt: ancient(1_001), status: 'scheduled' },
        });
        // Without a time a post is due from its creation (0018_due_at's key).
        const createdAfterUntil = await seed({
          post: { createdAt: ancient(1_002), status: 'queued' },
        });
        const done = [];
        for (const status of ['published', 'partial', 'failed', 'cancelled'] as const) {
          done.push(await seed({ post: { createdAt: ancient(4), status } }));
        }

        const strip = ({ targets: _targets, ...post }: PostWithTargets) => post;
        const expected = [running, dueScheduled, immediate, dueAtUntil].map(strip);
        expect(await posts().findDuePosts(until, expected.length)).toEqual(expected);
        expect(await posts().findDuePosts(until, 2)).toEqual(expected.slice(0, 2));

        const all = (await posts().findDuePosts(until, 10_000)).map((post) => post.id);
        for (const post of [later, createdAfterUntil, ...done]) expect(all).not.toContain(post.id);
      });

      it('finds publishing targets whose lease expired before now, at most limit', async () => {
        const claimAt = async (seconds: number, leaseSeconds: number) => {
          const post = await seedPost(storage().repos);
          const id = post.targets[0]?.id ?? '';
          const claimed = await storage().testing.claimTarget(
            id,
            ancient(seconds + leaseSeconds),
            ancient(seconds),
            false,
          );
          if (!claimed) throw new Error('claim failed');
          return claimed;
        };
        const expiredLater = await claimAt(10, 60); // lease until 70
        const expiredFirst = await claimAt(0, 50); // lease until 50
        const stillHeld = await claimAt(100, 60); // lease until 160
        const finished = await claimAt(0, 40);
        await posts().completeTarget(finished.id, {
          status: 'failed',
          errorCode: 'x',
          errorMessage: 'x',
          retryable: false,
          at: ancient(41),
        });
        const now = ancient(100);
        expect(await posts().findExpiredLeases(now, 2)).toEqual([expiredFirst, expiredLater]);
        expect(await posts().findExpiredLeases(now, 1)).toEqual([expiredFirst]);
        const ids = (await posts().findExpiredLeases(now, 10_000)).map((target) => target.id);
        expect(ids).not.toContain(stillHeld.id);
        expect(ids).not.toContain(finished.id);
      });
    });
  });
}
