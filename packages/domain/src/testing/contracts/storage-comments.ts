/**
 * Contract of CommentsRepository: the track a publication starts (completeTarget with
 * commentsDueAt), its claim under a lease, comments stored once per (target, platform id), the
 * post's list and the inbox newest first with their keyset pages, marking read, and replies
 * recorded once per Idempotency-Key before they are sent, an abandoned one held for one look-up
 * at a time.
 *
 *   import { describeCommentsRepositoryContract } from '@social-publisher/domain/contracts/storage-comments';
 *
 * claimDue and claimAbandonedReplies are global: their tests run on times in 1971 that only they
 * use, after taking every comment track already due and every reply of 1971 already abandoned.
 */
import { describe, expect, it } from 'vitest';
import type { CommentReply, CommentTrack, StoredComment } from '../../comments-model.ts';
import type { PostWithTargets } from '../../model.ts';
import {
  ancient,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

const HOUR = 3_600_000;
const FAR = new Date(Date.UTC(2200, 0, 1));

export function describeCommentsRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: CommentsRepository`, () => {
    const storage = useStorage(setup);
    const comments = () => storage().repos.comments;

    /** A post with `count` targets on Mastodon, published, each followed from `dueAt` on. */
    async function publish(
      count: number,
      dueAt: Date | undefined,
      owner: { userId?: string; accountId?: string } = {},
    ): Promise<{ post: PostWithTargets; tracks: CommentTrack[] }> {
      const post = await seedPost(storage().repos, {
        ...owner,
        platforms: Array.from({ length: count }, () => 'mastodon' as const),
        socialAccountIds: Array.from({ length: count }, () => newId()),
      });
      for (const [index, target] of post.targets.entries()) {
        const at = nextTime();
        if (!(await storage().testing.claimTarget(target.id, plus(at, HOUR), at, false))) {
          throw new Error('claim failed');
        }
        const completion = {
          status: 'published' as const,
          platformPostId: `status-${index}-${target.id.slice(0, 8)}`,
          platformUrl: null,
          at,
          ...(dueAt ? { commentsDueAt: dueAt } : {}),
        };
        if (!(await storage().repos.posts.completeTarget(target.id, completion))) {
          throw new Error('completion failed');
        }
      }
      return { post, tracks: await comments().tracksOfPost(post.id) };
    }

    function commentOn(
      post: PostWithTargets,
      platformCommentId: string,
      changes: Partial<StoredComment> = {},
    ): StoredComment {
      const target = post.targets[0];
      if (!target) throw new Error('no target');
      return {
        id: newId(),
        accountId: post.accountId,
        postId: post.id,
        targetId: target.id,
        socialAccountId: target.socialAccountId,
        platform: target.platform,
        platformCommentId,
        parentPlatformId: null,
        parentId: null,
        author: { id: 'a-1', name: 'Ann', handle: 'ann@example.social' },
        text: `comment ${platformCommentId}`,
        createdAt: nextTime(),
        hidden: false,
        mine: false,
        read: false,
        receivedAt: nextTime(),
        sandbox: false,
        ...changes,
      };
    }

    it('starts a pending track with a published completion that asks for one, only then', async () => {
      const dueAt = plus(nextTime(), HOUR);
      const { post, tracks } = await publish(1, dueAt);
      const target = post.targets[0];
      expect(tracks).toEqual([
        expect.objectContaining({
          targetId: target?.id,
          postId: post.id,
          accountId: post.accountId,
          platform: 'mastodon',
          state: 'pending',
          step: 0,
          dueAt,
          readAt: null,
          error: null,
        }),
      ]);
      expect((await publish(1, undefined)).tracks).toEqual([]);
    });

    it('claims due tracks earliest first under a lease; records and postpones them', async () => {
      while ((await comments().claimDue(ancient(10_000_000), 1_000, FAR)).length > 0);
      const [late] = (await publish(1, ancient(100))).tracks;
      const [early] = (await publish(1, ancient(50))).tracks;
      const claimed = await comments().claimDue(ancient(100), 10, ancient(200));
      expect(claimed.map((t) => t.targetId)).toEqual([early?.targetId, late?.targetId]);
      expect(claimed.map((t) => t.dueAt)).toEqual([ancient(50), ancient(100)]);
      expect(await comments().claimDue(ancient(150), 10, FAR)).toEqual([]);

      const readAt = nextTime();
      await comments().record([
        {
          targetId: early?.targetId ?? '',
          state: 'fresh',
          step: 1,
          dueAt: null,
          error: null,
          readAt,
        },
      ]);
      await comments().postpone([{ targetId: late?.targetId ?? '', dueAt: ancient(300) }]);
      const [recorded] = await comments().tracksOfPost(early?.postId ?? '');
      expect(recorded).toMatchObject({ state: 'fresh', step: 1, dueAt: null, readAt });
      expect((await comments().claimDue(ancient(400), 10, FAR)).map((t) => t.targetId)).toEqual([
        late?.targetId,
      ]);
    });

    it('asks a refresh of the tracks not read lately, not of gone ones', async () => {
      const { post, tracks } = await publish(2, plus(nextTime(), 100 * HOUR));
      const [first, second] = tracks;
      await comments().record([
        { targetId: second?.targetId ?? '', state: 'gone', step: 0, dueAt: null, error: 'gone' },
      ]);
      const now = nextTime();
      expect(await comments().requestRefresh(post.id, now, now)).toBe(1);
      expect(await comments().requestRefresh(post.id, now, now)).toBe(0);
      const after = await comments().tracksOfPost(post.id);
      expect(after.find((t) => t.targetId === first?.targetId)?.dueAt).toEqual(now);
      // An unsupported one is asked again: the connection may hold the scope by now.
      const other = await publish(1, plus(nextTime(), 100 * HOUR));
      const [lacking] = other.tracks;
      await comments().record([
        {
          targetId: lacking?.targetId ?? '',
          state: 'unsupported',
          step: 0,
          dueAt: null,
          error: 'scope',
        },
      ]);
      expect(await comments().requestRefresh(other.post.id, now, now)).toBe(1);
    });

    it('stores a comment once per target and platform id, and says which were new', async () => {
      const { post } = await publish(1, undefined);
      const a = commentOn(post, 'c-1');
      const b = commentOn(post, 'c-2', { parentPlatformId: 'c-1' });
      const again = commentOn(post, 'c-1', { text: 'read twice' });
      const stored = await comments().insertNew([a, b]);
      expect(stored.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
      expect(await comments().insertNew([again])).toEqual([]);
      const found = await comments().findById(b.id);
      expect(found).toEqual({ ...b, parentId: a.id });
      expect(await comments().findByPlatformId(a.targetId, 'c-1')).toEqual(a);
      expect(await comments().findById(newId())).toBeNull();
    });

    it("lists a post's comments newest first, a page at a time, per target", async () => {
      const { post } = await publish(1, undefined);
      const list = [commentOn(post, 'p-1'), commentOn(post, 'p-2'), commentOn(post, 'p-3')];
      await comments().insertNew(list);
      const first = await comments().listByPost(post.id, null, { limit: 2 });
      expect(first.map((c) => c.platformCommentId)).toEqual(['p-3', 'p-2']);
      const last = first[1] as StoredComment;
      const next = await comments().listByPost(post.id, null, {
        limit: 2,
        before: { createdAt: last.createdAt, id: last.id },
      });
      expect(next.map((c) => c.platformCommentId)).toEqual(['p-1']);
      expect(await comments().listByPost(post.id, newId(), { limit: 10 })).toEqual([]);
    });

    it("keeps each account's inbox apart, with the unread and platform filters; marks read", async () => {
      const user = await seedUser(storage().repos);
      const { post } = await publish(1, undefined, { userId: user.id });
      const other = (await publish(1, undefined)).post;
      const [one, two] = [commentOn(post, 'i-1'), commentOn(post, 'i-2', { read: true })];
      const theirs = commentOn(other, 'i-3');
      await comments().insertNew([one, two, theirs]);
      const inbox = await comments().inbox({ accountId: post.accountId, limit: 10 });
      expect(inbox.map((c) => c.id)).toEqual([two.id, one.id]);
      const unread = await comments().inbox({
        accountId: post.accountId,
        unreadOnly: true,
        limit: 10,
      });
      expect(unread.map((c) => c.id)).toEqual([one.id]);
      expect(
        await comments().inbox({ accountId: post.accountId, platform: 'bluesky', limit: 10 }),
      ).toEqual([]);
      // Another account's comment is never marked by this one.
      expect(await comments().markRead(post.accountId, [one.id, one.id, theirs.id])).toBe(1);
      expect((await comments().findById(one.id))?.read).toBe(true);
      expect((await comments().findById(theirs.id))?.read).toBe(false);
    });

    it('hides and deletes a comment', async () => {
      const { post } = await publish(1, undefined);
      const comment = commentOn(post, 'h-1');
      await comments().insertNew([comment]);
      await comments().setHidden(comment.id, true);
      expect((await comments().findById(comment.id))?.hidden).toBe(true);
      await comments().delete(comment.id);
      expect(await comments().findById(comment.id)).toBeNull();
    });

    it('records a reply once per key and ends it once', async () => {
      const { post } = await publish(1, undefined);
      const comment = commentOn(post, 'r-1');
      await comments().insertNew([comment]);
      const reply: CommentReply = {
        id: newId(),
        accountId: post.accountId,
        commentId: comment.id,
        idempotencyKey: `key-${newId()}`,
        text: 'thanks',
        state: 'sending',
        intentAt: nextTime(),
        platformCommentId: null,
        replyCommentId: null,
        error: null,
      };
      expect(await comments().createReply(reply)).toEqual({ reply, created: true });
      const twice = await comments().createReply({ ...reply, id: newId(), text: 'again' });
      expect(twice).toEqual({ reply, created: false });
      const mine = commentOn(post, 'r-2', { mine: true, read: true, parentPlatformId: 'r-1' });
      await comments().insertNew([mine]);
      const end = { state: 'sent' as const, platformCommentId: 'r-2', replyCommentId: mine.id };
      expect(await comments().endReply(reply.id, end)).toBe(true);
      expect(await comments().endReply(reply.id, { state: 'outcome_unknown' })).toBe(false);
      expect(await comments().findReply(post.accountId, reply.idempotencyKey)).toEqual({
        ...reply,
        ...end,
        state: 'sent',
      });
      expect(await comments().findReply(post.accountId, 'unknown')).toBeNull();
      // Only a refused reply starts again.
      expect(await comments().restartReply(reply.id, nextTime())).toBe(false);
      const refused = { ...reply, id: newId(), idempotencyKey: `key-${newId()}` };
      await comments().createReply(refused);
      await comments().endReply(refused.id, { state: 'failed', error: 'too long' });
      const again = nextTime();
      expect(await comments().restartReply(refused.id, again)).toBe(true);
      expect(await comments().findReply(post.accountId, refused.idempotencyKey)).toEqual({
        ...refused,
        intentAt: again,
      });
    });

    it('holds an abandoned sending reply for one look-up at a time, oldest first', async () => {
      const everything = ancient(10_000_000);
      while ((await comments().claimAbandonedReplies(everything, everything, 1_000, FAR)).length);
      const { post } = await publish(1, undefined);
      const comment = commentOn(post, 'h-1');
      await comments().insertNew([comment]);
      const intent = async (seconds: number): Promise<CommentReply> => {
        const reply: CommentReply = {
          id: newId(),
          accountId: post.accountId,
          commentId: comment.id,
          idempotencyKey: `key-${newId()}`,
          text: `reply at ${seconds}`,
          state: 'sending',
          intentAt: ancient(seconds),
          platformCommentId: null,
          replyCommentId: null,
          error: null,
        };
        await comments().createReply(reply);
        return reply;
      };
      const ended = await intent(5);
      const older = await intent(10);
      const old = await intent(20);
      const young = await intent(100);
      await comments().endReply(ended.id, { state: 'outcome_unknown', error: 'lost' });
      const first = await comments().claimAbandonedReplies(
        ancient(50),
        ancient(60),
        10,
        ancient(90),
      );
      expect(first).toEqual([older, old]);
      // Held: nobody takes them again before the hold ends.
      expect(await comments().claimAbandonedReplies(ancient(50), ancient(80), 10, FAR)).toEqual([]);
      expect(await comments().claimReplyLookup(old.id, ancient(50), ancient(80), FAR)).toBe(false);
      // The holder died: taken again once the hold passed, as many as asked.
      expect(
        await comments().claimAbandonedReplies(ancient(50), ancient(90), 1, ancient(200)),
      ).toEqual([older]);
      expect(
        await comments().claimReplyLookup(old.id, ancient(50), ancient(90), ancient(200)),
      ).toBe(true);
      expect(
        await comments().claimReplyLookup(old.id, ancient(50), ancient(90), ancient(200)),
      ).toBe(false);
      // Too young until its intent is older than the cut-off; an ended reply never.
      expect(await comments().claimReplyLookup(young.id, ancient(100), ancient(90), FAR)).toBe(
        false,
      );
      expect(await comments().claimReplyLookup(young.id, ancient(101), ancient(90), FAR)).toBe(
        true,
      );
      expect(await comments().claimReplyLookup(ended.id, everything, everything, FAR)).toBe(false);
      expect(await comments().findReply(post.accountId, old.idempotencyKey)).toEqual(old);
    });

    it('gives two claims of abandoned replies at once different replies', async () => {
      const everything = ancient(10_000_000);
      while ((await comments().claimAbandonedReplies(everything, everything, 1_000, FAR)).length);
      const { post } = await publish(1, undefined);
      const comment = commentOn(post, 'h-2');
      await comments().insertNew([comment]);
      for (let n = 0; n < 6; n++) {
        await comments().createReply({
          id: newId(),
          accountId: post.accountId,
          commentId: comment.id,
          idempotencyKey: `key-${newId()}`,
          text: `reply ${n}`,
          state: 'sending',
          intentAt: ancient(1_000 + n),
          platformCommentId: null,
          replyCommentId: null,
          error: null,
        });
      }
      const claims = await Promise.all(
        [0, 1].map(() => comments().claimAbandonedReplies(ancient(2_000), ancient(2_000), 3, FAR)),
      );
      const ids = claims.flat().map((reply) => reply.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThan(0);
    });
  });
}
