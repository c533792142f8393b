/**
 * Contract of DeliveryRepository: webhook deliveries (payload kept byte for byte) and their
 * attempt log.
 *
 *   import { describeDeliveryRepositoryContract } from '@social-publisher/domain/contracts/storage-deliveries';
 */
import { describe, expect, it } from 'vitest';
import type { Webhook } from '../../model.ts';
import {
  ancient,
  makeAttempt,
  makeDelivery,
  makeWebhook,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  useStorage,
} from './storage-fixtures.ts';

export function describeDeliveryRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: DeliveryRepository`, () => {
    const storage = useStorage(setup);
    const deliveries = () => storage().repos.deliveries;

    /** A stored webhook and a post of the same user. */
    async function seedWebhook(): Promise<{ webhook: Webhook; postId: string }> {
      const post = await seedPost(storage().repos);
      const webhook = makeWebhook(post.accountId, post.createdBy);
      await storage().repos.webhooks.insert(webhook);
      return { webhook, postId: post.id };
    }

    it('stores deliveries and finds them by id, payload byte for byte', async () => {
      const { webhook, postId } = await seedWebhook();
      // Not canonical JSON on purpose: spacing, key order, escapes and non-ASCII must survive.
      const payload = `{"event":"post.partial", "post_id":"${postId}","data":{"total":3,"published":2,"failed":1},"note":"caf\\u00e9 — 🎉","z":1.50}`;
      const first = makeDelivery(webhook, postId, { payload, event: 'post.partial' });
      const second = makeDelivery(webhook, postId);
      await deliveries().insertMany([first, second]);
      expect(await deliveries().findById(first.id)).toEqual(first);
      expect((await deliveries().findById(first.id))?.payload).toBe(payload);
      expect(await deliveries().findById(second.id)).toEqual(second);
      expect(await deliveries().findById(newId())).toBeNull();
    });

    it('stores a delivery about a connection (social_account.expired): no post', async () => {
      const { webhook } = await seedWebhook();
      const delivery = makeDelivery(webhook, '', {
        postId: null,
        event: 'social_account.expired',
        payload: '{"event":"social_account.expired","data":{"reason":"revoked"}}',
      });
      await deliveries().insertMany([delivery]);
      expect(await deliveries().findById(delivery.id)).toEqual(delivery);
    });

    it('accepts an empty batch', async () => {
      await expect(deliveries().insertMany([])).resolves.toBeUndefined();
    });

    it('with onlyIf, stores the deliveries only when the post transition applies', async () => {
      const { webhook, postId } = await seedWebhook();
      const storedPost = await storage().repos.posts.findById(postId);
      if (!storedPost) throw new Error('no post');
      const at = plus(storedPost.createdAt, 1_000);
      const first = makeDelivery(webhook, postId);
      const second = makeDelivery(webhook, postId);
      const fromPublishing = {
        postId,
        from: ['publishing'] as const,
        to: 'published' as const,
        at,
      };
      // The post is `queued`: the transition does not apply, nothing is stored.
      expect(await deliveries().insertMany([first, second], fromPublishing)).toBe(false);
      expect(await deliveries().findById(first.id)).toBeNull();
      expect((await storage().repos.posts.findById(postId))?.status).toBe('queued');

      const fromQueued = { ...fromPublishing, from: ['queued', 'scheduled'] as const };
      expect(await deliveries().insertMany([first, second], fromQueued)).toBe(true);
      expect(await deliveries().findById(first.id)).toEqual(first);
      expect(await deliveries().findById(second.id)).toEqual(second);
      const moved = await storage().repos.posts.findById(postId);
      expect(moved).toMatchObject({ status: 'published', updatedAt: at });

      // Applied once: a second finisher stores nothing.
      const third = makeDelivery(webhook, postId);
      expect(await deliveries().insertMany([third], fromQueued)).toBe(false);
      expect(await deliveries().findById(third.id)).toBeNull();
    });

    it('with onlyIf and no deliveries, is just the transition', async () => {
      const { postId } = await seedWebhook();
      const at = nextTime();
      const transition = { postId, from: ['queued'] as const, to: 'cancelled' as const, at };
      expect(await deliveries().insertMany([], transition)).toBe(true);
      expect(await deliveries().insertMany([], transition)).toBe(false);
      expect(await deliveries().insertMany([], { ...transition, from: [] })).toBe(false);
      expect((await storage().repos.posts.findById(postId))?.status).toBe('cancelled');
    });

    it('with onlyIf, a failing insert leaves the post unchanged', async () => {
      const { webhook, postId } = await seedWebhook();
      const existing = makeDelivery(webhook, postId);
      await deliveries().insertMany([existing]);
      const transition = {
        postId,
        from: ['queued'] as const,
        to: 'published' as const,
        at: nextTime(),
      };
      const fresh = makeDelivery(webhook, postId);
      await expect(deliveries().insertMany([fresh, existing], transition)).rejects.toThrow();
      expect((await storage().repos.posts.findById(postId))?.status).toBe('queued');
      expect(await deliveries().findById(fresh.id)).toBeNull();
    });

    it('finds a delivery with its webhook in one call', async () => {
      const { webhook, postId } = await seedWebhook();
      const delivery = makeDelivery(webhook, postId, { payload: '{"a": 1}' });
      await deliveries().insertMany([delivery]);
      expect(await deliveries().findWithWebhook(delivery.id)).toEqual({ delivery, webhook });
      expect(await deliveries().findWithWebhook(newId())).toBeNull();
      await storage().repos.webhooks.delete(webhook.id);
      expect(await deliveries().findWithWebhook(delivery.id)).toBeNull();
    });

    it('lists the deliveries of a webhook newest first, at most limit, with attempts oldest first', async () => {
      const { webhook, postId } = await seedWebhook();
      const other = makeWebhook(webhook.accountId, webhook.createdBy);
      await storage().repos.webhooks.insert(other);
      const older = makeDelivery(webhook, postId);
      const middle = makeDelivery(webhook, postId);
      const newest = makeDelivery(webhook, postId);
      await deliveries().insertMany([middle, newest, older, makeDelivery(other, postId)]);

      const firstAttempt = makeAttempt(middle.id, 1, { statusCode: null, error: 'timeout' });
      await deliveries().recordAttempt(firstAttempt, {
        status: 'pending',
        nextAttemptAt: plus(firstAttempt.createdAt, 5_000),
        deliveredAt: null,
      });
      const secondAttempt = makeAttempt(middle.id, 2, { statusCode: 200, error: null });
      await deliveries().recordAttempt(secondAttempt, {
        status: 'delivered',
        nextAttemptAt: null,
        deliveredAt: secondAttempt.createdAt,
      });

      const listed = await deliveries().listByWebhook(webhook.id, 10);
      expect(listed.map((delivery) => delivery.id)).toEqual([newest.id, middle.id, older.id]);
      expect(listed[0]).toEqual({ ...newest, attemptLog: [] });
      expect(listed[1]?.attemptLog).toEqual([firstAttempt, secondAttempt]);
      expect(listed[2]).toEqual({ ...older, attemptLog: [] });

      const limited = await deliveries().listByWebhook(webhook.id, 2);
      expect(limited.map((delivery) => delivery.id)).toEqual([newest.id, middle.id]);
      expect(await deliveries().listByWebhook(newId(), 10)).toEqual([]);
    });

    it('records an attempt and updates the delivery in the same call', async () => {
      const { webhook, postId } = await seedWebhook();
      const delivery = makeDelivery(webhook, postId);
      await deliveries().insertMany([delivery]);

      const failed = makeAttempt(delivery.id, 1, { statusCode: 503, error: 'HTTP 503' });
      const retryAt = plus(failed.createdAt, 5_000);
      await deliveries().recordAttempt(failed, {
        status: 'pending',
        nextAttemptAt: retryAt,
        deliveredAt: null,
      });
      expect(await deliveries().findById(delivery.id)).toEqual({
        ...delivery,
        attempts: 1,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: retryAt,
      });

      const ok = makeAttempt(delivery.id, 2, { statusCode: 204, error: null, durationMs: 80 });
      await deliveries().recordAttempt(ok, {
        status: 'delivered',
        nextAttemptAt: null,
        deliveredAt: ok.createdAt,
      });
      expect(await deliveries().findById(delivery.id)).toEqual({
        ...delivery,
        status: 'delivered',
        attempts: 2,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
        deliveredAt: ok.createdAt,
      });
      const [listed] = await deliveries().listByWebhook(webhook.id, 1);
      expect(listed?.attemptLog).toEqual([failed, ok]);
    });

    it('records a final failure', async () => {
      const { webhook, postId } = await seedWebhook();
      const delivery = makeDelivery(webhook, postId);
      await deliveries().insertMany([delivery]);
      const attempt = makeAttempt(delivery.id, 1, { statusCode: 410, error: 'HTTP 410' });
      await deliveries().recordAttempt(attempt, {
        status: 'failed',
        nextAttemptAt: null,
        deliveredAt: null,
      });
      expect(await deliveries().findById(delivery.id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastStatusCode: 410,
        nextAttemptAt: null,
      });
    });

    it('reset puts a delivery back to pending: attempts 0, deliveredAt cleared, history kept', async () => {
      const { webhook, postId } = await seedWebhook();
      const delivery = makeDelivery(webhook, postId);
      await deliveries().insertMany([delivery]);
      const attempt = makeAttempt(delivery.id, 1, { statusCode: 200, error: null });
      await deliveries().recordAttempt(attempt, {
        status: 'delivered',
        nextAttemptAt: null,
        deliveredAt: attempt.createdAt,
      });
      const next = nextTime();
      await deliveries().reset(delivery.id, next);
      expect(await deliveries().findById(delivery.id)).toEqual({
        ...delivery,
        status: 'pending',
        attempts: 0,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: next,
        deliveredAt: null,
      });
      const [listed] = await deliveries().listByWebhook(webhook.id, 1);
      expect(listed?.attemptLog).toEqual([attempt]);
      expect(listed?.payload).toBe(delivery.payload);
    });

    it('finds pending deliveries that are due, earliest first, at most limit', async () => {
      const { webhook, postId } = await seedWebhook();
      const dueLater = makeDelivery(webhook, postId, { nextAttemptAt: ancient(50) });
      const dueFirst = makeDelivery(webhook, postId, { nextAttemptAt: ancient(10) });
      const dueNow = makeDelivery(webhook, postId, { nextAttemptAt: ancient(100) });
      const future = makeDelivery(webhook, postId, { nextAttemptAt: ancient(101) });
      const delivered = makeDelivery(webhook, postId, {
        status: 'delivered',
        nextAttemptAt: null,
        deliveredAt: ancient(5),
        attempts: 1,
      });
      const failed = makeDelivery(webhook, postId, {
        status: 'failed',
        nextAttemptAt: ancient(1),
        attempts: 8,
      });
      await deliveries().insertMany([dueLater, dueFirst, dueNow, future, delivered, failed]);

      const now = ancient(100);
      expect(await deliveries().findDue(now, 3)).toEqual([dueFirst, dueLater, dueNow]);
      expect(await deliveries().findDue(now, 1)).toEqual([dueFirst]);
      const ids = (await deliveries().findDue(now, 10_000)).map((delivery) => delivery.id);
      for (const notDue of [future, delivered, failed]) expect(ids).not.toContain(notDue.id);
    });

    it('returns copies', async () => {
      const { webhook, postId } = await seedWebhook();
      const delivery = makeDelivery(webhook, postId);
      await deliveries().insertMany([delivery]);
      const stored = { ...delivery };
      delivery.status = 'failed';
      const found = await deliveries().findById(stored.id);
      expect(found).toEqual(stored);
      if (found) found.attempts = 99;
      expect(await deliveries().findById(stored.id)).toEqual(stored);
      const [listed] = await deliveries().listByWebhook(webhook.id, 1);
      listed?.attemptLog.push(makeAttempt(stored.id, 1));
      expect((await deliveries().listByWebhook(webhook.id, 1))[0]?.attemptLog).toEqual([]);
    });
  });
}
