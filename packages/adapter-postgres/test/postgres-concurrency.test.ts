// Races on a real PostgreSQL server between separate pools (as separate worker processes):
// 20 claimers on the same 100 targets, each target claimed exactly once; the same for lease
// take-overs; and "count, then insert below the limit" inside units of work.

import {
  makeApiKey,
  makePost,
  plus,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/index.ts';
import { claimTargetForTests } from '../src/testing.ts';
import { type Backend, createPostgresDatabase, openPostgresBackend } from './backends.ts';

const CLAIMERS = 20;
const TARGETS = 100;
const LEASE_MS = 60_000;

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

const database = await createPostgresDatabase();

if (database.skipReason !== undefined) {
  describe('postgres concurrency', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  describe('postgres concurrency', () => {
    let main: Backend | undefined;
    const workers: Backend[] = [];
    const handle = (): DatabaseHandle => {
      if (!main) throw new Error('no backend');
      return main.handle;
    };

    beforeAll(async () => {
      main = await openPostgresBackend(database);
      // One pool of one connection per claimer: 20 independent "workers".
      for (let i = 0; i < CLAIMERS; i++) {
        workers.push(await openPostgresBackend(database, { poolSize: 1, migrate: false }));
      }
    });
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await main?.close();
      await database.drop();
    });

    /** 100 pending targets (25 posts x 4 targets). */
    async function seedTargets(): Promise<string[]> {
      const { repos } = handle();
      const user = await seedUser(repos);
      const ids: string[] = [];
      for (let i = 0; i < TARGETS / 4; i++) {
        const post = makePost(user.id, user.id, {
          platforms: ['tiktok', 'instagram', 'youtube', 'twitter'],
        });
        await repos.posts.insert(post);
        ids.push(...post.targets.map((target) => target.id));
      }
      return ids;
    }

    async function race(
      ids: string[],
      now: Date,
      allowExpiredLease: boolean,
    ): Promise<{ claims: string[][]; claimed: string[] }> {
      const claims = await Promise.all(
        workers.map(async (worker) => {
          const mine: string[] = [];
          for (const id of shuffled(ids)) {
            const target = await claimTargetForTests(worker.handle.db)(
              id,
              plus(now, LEASE_MS),
              now,
              allowExpiredLease,
            );
            if (target) mine.push(target.id);
          }
          return mine;
        }),
      );
      return { claims, claimed: claims.flat() };
    }

    it(`${CLAIMERS} parallel claimers on the same ${TARGETS} targets: each claimed exactly once`, async () => {
      const ids = await seedTargets();
      const now = new Date();
      const started = performance.now();
      const { claims, claimed } = await race(ids, now, false);
      console.info(
        `[postgres] ${CLAIMERS} claimers x ${TARGETS} targets: ${(performance.now() - started).toFixed(0)} ms, ` +
          `claims per worker ${claims.map((c) => c.length).join(',')}`,
      );

      expect(claimed).toHaveLength(TARGETS);
      expect(new Set(claimed)).toEqual(new Set(ids));
      expect(claims.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
      const post = await handle().repos.posts.findById(
        (
          await handle()
            .db.selectFrom('post_targets')
            .select('post_id')
            .where('id', '=', ids[0] ?? '')
            .executeTakeFirstOrThrow()
        ).post_id,
      );
      const mine = [post?.createdBy ?? '', [post?.accountId ?? '']] as const;
      const targets = (await handle().repos.posts.listByCreator(...mine)).flatMap((p) => p.targets);
      expect(targets).toHaveLength(TARGETS);
      for (const target of targets) {
        expect(target.status).toBe('publishing');
        expect(target.attempts).toBe(1);
      }

      // Their leases run out: the take-over race, with allowExpiredLease.
      const later = plus(now, LEASE_MS + 1_000);
      const takeover = await race(ids, later, true);
      expect(takeover.claimed).toHaveLength(TARGETS);
      expect(new Set(takeover.claimed)).toEqual(new Set(ids));
      const after = (await handle().repos.posts.listByCreator(...mine)).flatMap((p) => p.targets);
      expect(after.every((target) => target.attempts === 2)).toBe(true);
    }, 120_000);

    it(`${CLAIMERS} parallel startPublish on the same posts, each sharing statements between its calls: each target claimed exactly once`, async () => {
      const ids = await seedTargets();
      const { db } = handle();
      const postIds = [
        ...new Set(
          (
            await db.selectFrom('post_targets').select('post_id').where('id', 'in', ids).execute()
          ).map((row) => row.post_id),
        ),
      ];
      const now = new Date();
      const race = (at: Date) =>
        Promise.all(
          workers.map(async (worker) => {
            // All at once: the repository folds them into shared statements.
            const starts = await Promise.all(
              shuffled(postIds).map((postId) =>
                worker.handle.repos.posts.startPublish(postId, {
                  now: at,
                  startBefore: at,
                  leaseExpiresAt: plus(at, LEASE_MS),
                }),
              ),
            );
            return starts.flatMap((start) => start?.claims ?? []).map((claim) => claim.target.id);
          }),
        );
      const claimed = (await race(now)).flat();
      expect(claimed).toHaveLength(TARGETS);
      expect(new Set(claimed)).toEqual(new Set(ids));
      // The leases run out: every target is taken over exactly once more.
      const takenOver = (await race(plus(now, LEASE_MS + 1_000))).flat();
      expect(takenOver).toHaveLength(TARGETS);
      expect(new Set(takenOver)).toEqual(new Set(ids));
      const attempts = await db
        .selectFrom('post_targets')
        .select('attempts')
        .where('id', 'in', ids)
        .execute();
      expect(attempts.every((row) => row.attempts === 2)).toBe(true);
    }, 120_000);

    it('count-then-insert in concurrent units of work never exceeds the limit', async () => {
      const user = await seedUser(handle().repos);
      const LIMIT = 10;
      const results = await Promise.all(
        workers.map((worker) =>
          worker.handle.uow.run(async (repos) => {
            const count = await repos.apiKeys.countByAccount(user.id);
            if (count >= LIMIT) return false;
            await new Promise((resolve) => setTimeout(resolve, 5));
            await repos.apiKeys.insert(makeApiKey(user.id, user.id));
            return true;
          }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(LIMIT);
      expect(await handle().repos.apiKeys.countByAccount(user.id)).toBe(LIMIT);
    }, 60_000);

    it('of concurrent status transitions from different workers exactly one applies', async () => {
      const user = await seedUser(handle().repos);
      const post = makePost(user.id, user.id, { post: { status: 'queued' } });
      await handle().repos.posts.insert(post);
      const results = await Promise.all(
        workers.map((worker, index) =>
          worker.handle.repos.posts.transitionStatus(
            post.id,
            ['queued', 'scheduled'],
            index % 2 === 0 ? 'publishing' : 'cancelled',
            new Date(),
          ),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
