/**
 * Contract of PostRepository.deleteFinishedBefore (POSTS_RETENTION_DAYS): finished posts last
 * changed before the cutoff go, oldest first and a bounded number per call, with their targets
 * and deliveries; anything unfinished, recent, or with a target still at work stays.
 * Its rows live in 1971 (storage-fixtures.ts): no other suite's post is that old.
 *
 *   import { describePostRetentionContract } from '@social-publisher/domain/contracts/storage-post-retention';
 */
import { describe, expect, it } from 'vitest';
import type { PostStatus, TargetStatus } from '../../model.ts';
import {
  ancient,
  makeDelivery,
  makeWebhook,
  type StorageSetup,
  seedPost,
  useStorage,
} from './storage-fixtures.ts';

export function describePostRetentionContract(name: string, setup: StorageSetup): void {
  describe(`${name}: PostRepository.deleteFinishedBefore`, () => {
    const storage = useStorage(setup);
    const posts = () => storage().repos.posts;

    async function seedOld(second: number, status: PostStatus, targetStatus: TargetStatus) {
      const { repos } = storage();
      const at = ancient(second);
      // Far from every other suite's global queries: not due, no lease run out, before 2100.
      const farAhead = new Date(Date.UTC(2100, 0, 1));
      return seedPost(repos, {
        post: { status, createdAt: at, updatedAt: at, scheduledAt: farAhead },
        target: {
          status: targetStatus,
          updatedAt: at,
          leaseExpiresAt: targetStatus === 'publishing' ? farAhead : null,
        },
      });
    }

    it('deletes finished posts changed before the cutoff, a bounded batch, with their targets and deliveries', async () => {
      const { repos } = storage();
      const older = await seedOld(100, 'published', 'published');
      const newer = await seedOld(101, 'failed', 'failed');
      const webhook = makeWebhook(older.accountId, older.createdBy);
      await repos.webhooks.insert(webhook);
      const delivery = makeDelivery(webhook, older.id);
      await repos.deliveries.insertMany([delivery]);

      expect(await posts().deleteFinishedBefore(ancient(200), 1)).toBe(1);
      const left = [await posts().findById(older.id), await posts().findById(newer.id)];
      expect(left.filter((post) => post === null)).toHaveLength(1);

      expect(await posts().deleteFinishedBefore(ancient(200), 10)).toBeGreaterThanOrEqual(1);
      expect(await posts().findById(older.id)).toBeNull();
      expect(await posts().findById(newer.id)).toBeNull();
      expect(await repos.deliveries.findById(delivery.id)).toBeNull();
    });

    it('keeps posts changed at or after the cutoff, unfinished posts, and posts with a target at work', async () => {
      const recent = await seedOld(300, 'cancelled', 'cancelled');
      const scheduled = await seedOld(250, 'scheduled', 'pending');
      const running = await seedOld(251, 'publishing', 'publishing');
      const targetAtWork = await seedOld(252, 'partial', 'publishing');

      await posts().deleteFinishedBefore(ancient(300), 100);
      for (const kept of [recent, scheduled, running, targetAtWork]) {
        expect(await posts().findById(kept.id)).not.toBeNull();
      }
      expect(await posts().deleteFinishedBefore(ancient(301), 100)).toBeGreaterThanOrEqual(1);
      expect(await posts().findById(recent.id)).toBeNull();
      expect(await posts().findById(targetAtWork.id)).not.toBeNull();
    });
  });
}
