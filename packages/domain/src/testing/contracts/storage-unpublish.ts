/**
 * Contract of PostRepository's unpublish side (PostUnpublishing): an ask moves targets to
 * `removing` or marks them `unsupported`, claims are leased and taken exactly once, and an
 * open request closes exactly once, with the counts of what was asked in it.
 */
import { describe, expect, it } from 'vitest';
import type { PostWithTargets, TargetStatus } from '../../model.ts';
import {
  makePost,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

const LEASE_MS = 60_000;

export function describePostUnpublishingContract(name: string, setup: StorageSetup): void {
  describe(`${name}: PostRepository (unpublish)`, () => {
    const storage = useStorage(setup);
    const posts = () => storage().repos.posts;

    /** A finished post whose targets have these statuses (published ones with platform ids). */
    async function finished(statuses: TargetStatus[]): Promise<PostWithTargets> {
      const user = await seedUser(storage().repos);
      const post = makePost(user.id, user.id, {
        platforms: statuses.map(() => 'twitter'),
        post: { status: 'partial' },
      });
      post.targets = post.targets.map((target, index) => {
        const status = statuses[index] ?? 'published';
        const out = status === 'published' || status === 'remove_failed';
        return {
          ...target,
          status,
          platformPostId: out ? `tweet-${index}` : null,
          publishedAt: out ? target.updatedAt : null,
          ...(status === 'remove_failed'
            ? { errorCode: 'forbidden', errorMessage: 'no', retryable: false }
            : {}),
        };
      });
      await posts().insert(post);
      return post;
    }
    const idsOf = (post: PostWithTargets) => post.targets.map((target) => target.id);
    const ask = (postId: string, removeTargetIds: string[], unsupportedTargetIds: string[] = []) =>
      posts().requestUnpublish({ postId, removeTargetIds, unsupportedTargetIds, at: nextTime() });

    it('moves published and remove_failed targets to removing, marks unsupported ones, leaves the rest', async () => {
      const post = await finished(['published', 'remove_failed', 'failed', 'published']);
      const [a, b, c, d] = idsOf(post) as [string, string, string, string];
      const after = await ask(post.id, [a, b, c], [d]);
      expect(after?.targets.map((t) => [t.status, t.unpublish, t.leaseExpiresAt])).toEqual([
        ['removing', null, null],
        ['removing', null, null],
        ['failed', null, null],
        ['published', 'unsupported', null],
      ]);
      expect(after?.targets[1]).toMatchObject({ errorCode: null, errorMessage: null });
      expect(await posts().findById(post.id)).toEqual(after);
      expect(await ask(newId(), [a])).toBeNull();
    });

    it('claims each unclaimed removing target once, and takes over a run-out claim', async () => {
      const post = await finished(['published', 'published', 'published']);
      await ask(post.id, idsOf(post).slice(0, 2));
      const now = nextTime();
      const lease = plus(now, LEASE_MS);
      const racing = await Promise.all(
        Array.from({ length: 4 }, () =>
          posts().claimRemovals(post.id, { now, leaseExpiresAt: lease }),
        ),
      );
      const claimed = racing.flat();
      expect(claimed.map((c) => c.target.id).sort()).toEqual(idsOf(post).slice(0, 2).sort());
      expect(claimed.every((c) => !c.takenOver && c.target.status === 'removing')).toBe(true);
      expect(claimed[0]?.target.leaseExpiresAt).toEqual(lease);
      expect(await posts().claimRemovals(post.id, { now, leaseExpiresAt: lease })).toEqual([]);
      const later = plus(lease, 1);
      const taken = await posts().claimRemovals(post.id, {
        now: later,
        leaseExpiresAt: plus(later, LEASE_MS),
      });
      expect(taken.map((c) => c.takenOver)).toEqual([true, true]);
    });

    it('renews a held claim only; a released target keeps its error and waits unclaimed', async () => {
      const post = await finished(['published']);
      const [id] = idsOf(post) as [string];
      await ask(post.id, [id]);
      const now = nextTime();
      expect(await posts().renewLease(id, plus(now, LEASE_MS), now)).toBe(false);
      await posts().claimRemovals(post.id, { now, leaseExpiresAt: plus(now, LEASE_MS) });
      expect(await posts().renewLease(id, plus(now, 2 * LEASE_MS), now)).toBe(true);
      const error = { errorCode: 'http_503', errorMessage: 'down' };
      await posts().releaseRemoval(id, error, plus(now, 1));
      const released = (await posts().findById(post.id))?.targets[0];
      expect(released).toMatchObject({ status: 'removing', leaseExpiresAt: null, ...error });
      expect(await posts().renewLease(id, plus(now, LEASE_MS), now)).toBe(false);
    });

    it('records a removal once: removed or remove_failed, then nothing changes it', async () => {
      const post = await finished(['published', 'published']);
      const [a, b] = idsOf(post) as [string, string];
      await ask(post.id, [a, b]);
      const at = nextTime();
      const removed = await posts().completeRemoval(a, { status: 'removed', at });
      expect(removed).toMatchObject({ status: 'removed', leaseExpiresAt: null, updatedAt: at });
      expect(removed?.platformPostId).toBe('tweet-0');
      const failed = await posts().completeRemoval(b, {
        status: 'remove_failed',
        errorCode: 'forbidden',
        errorMessage: 'not yours',
        retryable: false,
        at,
      });
      expect(failed).toMatchObject({ status: 'remove_failed', errorCode: 'forbidden' });
      expect(await posts().completeRemoval(a, { status: 'removed', at })).toBeNull();
      expect((await posts().findById(post.id))?.targets).toEqual([removed, failed]);
    });

    it('closes an open request once, counting every target asked in it (asks join it)', async () => {
      const post = await finished(['published', 'published', 'published']);
      const [a, b, c] = idsOf(post) as [string, string, string];
      await ask(post.id, [a]);
      await ask(post.id, [b], [c]);
      expect(await posts().findOpenUnpublishes(10_000)).toContain(post.id);
      expect(await posts().closeUnpublish(post.id, nextTime())).toBeNull();
      await posts().completeRemoval(a, { status: 'removed', at: nextTime() });
      await posts().completeRemoval(b, {
        status: 'remove_failed',
        errorCode: 'x',
        errorMessage: 'y',
        retryable: true,
        at: nextTime(),
      });
      const at = nextTime();
      const tallies = await Promise.all(
        Array.from({ length: 3 }, () => posts().closeUnpublish(post.id, at)),
      );
      expect(tallies.filter((t) => t !== null)).toEqual([
        { removed: 1, failed: 1, unsupported: 1, total: 3 },
      ]);
      expect(await posts().findOpenUnpublishes(10_000)).not.toContain(post.id);
      // A new ask opens a new request: only what it asks is counted.
      await ask(post.id, [b]);
      await posts().completeRemoval(b, { status: 'removed', at: nextTime() });
      expect(await posts().closeUnpublish(post.id, nextTime())).toEqual({
        removed: 1,
        failed: 0,
        unsupported: 0,
        total: 1,
      });
    });

    it('an ask whose targets all changed meanwhile opens a request that closes empty', async () => {
      const post = await finished(['failed']);
      await ask(post.id, idsOf(post));
      expect(await posts().closeUnpublish(post.id, nextTime())).toEqual({
        removed: 0,
        failed: 0,
        unsupported: 0,
        total: 0,
      });
    });

    it('an ask rolled back with its unit of work leaves nothing behind', async () => {
      const post = await finished(['published']);
      await expect(
        storage().uow.run(async (repos) => {
          await repos.posts.requestUnpublish({
            postId: post.id,
            removeTargetIds: idsOf(post),
            unsupportedTargetIds: [],
            at: nextTime(),
          });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect((await posts().findById(post.id))?.targets[0]?.status).toBe('published');
      expect(await posts().findOpenUnpublishes(10_000)).not.toContain(post.id);
    });
  });
}
