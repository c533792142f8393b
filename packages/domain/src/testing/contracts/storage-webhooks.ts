/**
 * Contract of WebhookRepository. Deleting a webhook deletes its deliveries (and their
 * attempts) with it.
 *
 *   import { describeWebhookRepositoryContract } from '@social-publisher/domain/contracts/storage-webhooks';
 */
import { describe, expect, it } from 'vitest';
import {
  byId,
  makeDelivery,
  makeWebhook,
  newId,
  type StorageSetup,
  seedPost,
  seedTeam,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

export function describeWebhookRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: WebhookRepository`, () => {
    const storage = useStorage(setup);
    const webhooks = () => storage().repos.webhooks;

    it('stores a webhook with its secret and finds it by id', async () => {
      const user = await seedUser(storage().repos);
      const webhook = makeWebhook(user.id, user.id, { events: ['post.failed'] });
      await webhooks().insert(webhook);
      expect(await webhooks().findById(webhook.id)).toEqual(webhook);
      expect(await webhooks().findById(newId())).toBeNull();
    });

    it('lists the webhooks of one account only', async () => {
      const user = await seedUser(storage().repos);
      const team = await seedTeam(storage().repos, user.id);
      const mine = [
        makeWebhook(user.id, user.id),
        makeWebhook(user.id, user.id, { active: false }),
      ];
      const teams = makeWebhook(team.id, user.id);
      for (const webhook of [...mine, teams]) await webhooks().insert(webhook);
      expect(byId(await webhooks().listByAccount(user.id))).toEqual(byId(mine));
      expect(await webhooks().listByAccount(team.id)).toEqual([teams]);
      expect(await webhooks().listByAccount(newId())).toEqual([]);
      expect(await webhooks().countByAccount(user.id)).toBe(2);
      expect(await webhooks().countByAccount(team.id)).toBe(1);
      expect(await webhooks().countByAccount(newId())).toBe(0);
      // Inside a unit of work too, with what it inserted.
      const counted = await storage().uow.run(async (repos) => {
        const before = await repos.webhooks.countByAccount(team.id);
        await repos.webhooks.insert(makeWebhook(team.id, user.id));
        return [before, await repos.webhooks.countByAccount(team.id)];
      });
      expect(counted).toEqual([1, 2]);
    });

    it('lists the active webhooks of an account subscribed to an event', async () => {
      const user = await seedUser(storage().repos);
      const other = await seedUser(storage().repos);
      const all = makeWebhook(user.id, user.id);
      const failedOnly = makeWebhook(user.id, user.id, { events: ['post.failed'] });
      const partialAndPublished = makeWebhook(user.id, user.id, {
        events: ['post.partial', 'post.published'],
      });
      const inactive = makeWebhook(user.id, user.id, { active: false });
      const otherAccount = makeWebhook(other.id, other.id);
      for (const webhook of [all, failedOnly, partialAndPublished, inactive, otherAccount]) {
        await webhooks().insert(webhook);
      }
      expect(byId(await webhooks().listActiveForEvent(user.id, 'post.published'))).toEqual(
        byId([all, partialAndPublished]),
      );
      expect(byId(await webhooks().listActiveForEvent(user.id, 'post.failed'))).toEqual(
        byId([all, failedOnly]),
      );
      expect(byId(await webhooks().listActiveForEvent(user.id, 'post.partial'))).toEqual(
        byId([all, partialAndPublished]),
      );
    });

    it('disables and enables a webhook', async () => {
      const user = await seedUser(storage().repos);
      const webhook = makeWebhook(user.id, user.id);
      await webhooks().insert(webhook);
      expect(await webhooks().setActive(webhook.id, false)).toBe(true);
      expect(await webhooks().findById(webhook.id)).toEqual({ ...webhook, active: false });
      expect(await webhooks().listActiveForEvent(user.id, 'post.published')).toEqual([]);
      expect(await webhooks().setActive(webhook.id, false)).toBe(true);
      expect(await webhooks().setActive(webhook.id, true)).toBe(true);
      expect(await webhooks().findById(webhook.id)).toEqual(webhook);
      expect(await webhooks().setActive(newId(), true)).toBe(false);
    });

    it('stores a connection filter and lists by the connections an event is about', async () => {
      const user = await seedUser(storage().repos);
      const [a, b, c] = [newId(), newId(), newId()];
      const all = makeWebhook(user.id, user.id);
      const onlyA = makeWebhook(user.id, user.id, { socialAccountIds: [a] });
      const aOrB = makeWebhook(user.id, user.id, { socialAccountIds: [a, b] });
      for (const webhook of [all, onlyA, aOrB]) await webhooks().insert(webhook);
      expect(await webhooks().findById(aOrB.id)).toEqual(aOrB);
      const list = (ids?: string[]) =>
        webhooks()
          .listActiveForEvent(user.id, 'post.published', ids)
          .then((found) => byId(found));
      expect(await list([a])).toEqual(byId([all, onlyA, aOrB]));
      expect(await list([b, c])).toEqual(byId([all, aOrB]));
      expect(await list([c])).toEqual(byId([all]));
      expect(await list([])).toEqual(byId([all]));
      // Without the event's connections the filters are the caller's to apply.
      expect(await list()).toEqual(byId([all, onlyA, aOrB]));
    });

    it('disables a webhook with a reason; enabling it by hand clears the reason and the streak', async () => {
      const user = await seedUser(storage().repos);
      const webhook = makeWebhook(user.id, user.id);
      await webhooks().insert(webhook);
      const failedAt = new Date('2030-01-01T00:00:00.000Z');
      expect(await webhooks().noteAttempt(webhook.id, false, failedAt)).toEqual(failedAt);
      expect(await webhooks().disable(webhook.id, 'every delivery failed')).toBe(true);
      expect(await webhooks().findById(webhook.id)).toEqual({
        ...webhook,
        active: false,
        disabledReason: 'every delivery failed',
        failingSince: failedAt,
      });
      expect(await webhooks().listActiveForEvent(user.id, 'post.published')).toEqual([]);
      expect(await webhooks().setActive(webhook.id, true)).toBe(true);
      expect(await webhooks().findById(webhook.id)).toEqual(webhook);
      expect(await webhooks().disable(newId(), 'gone')).toBe(false);
    });

    it('keeps the start of a failing streak until an attempt is delivered', async () => {
      const user = await seedUser(storage().repos);
      const webhook = makeWebhook(user.id, user.id);
      await webhooks().insert(webhook);
      const first = new Date('2030-01-01T00:00:00.000Z');
      const later = new Date('2030-01-03T00:00:00.000Z');
      expect(await webhooks().noteAttempt(webhook.id, false, first)).toEqual(first);
      expect(await webhooks().noteAttempt(webhook.id, false, later)).toEqual(first);
      expect((await webhooks().findById(webhook.id))?.failingSince).toEqual(first);
      expect(await webhooks().noteAttempt(webhook.id, true, later)).toBeNull();
      expect((await webhooks().findById(webhook.id))?.failingSince).toBeNull();
      expect(await webhooks().noteAttempt(webhook.id, false, later)).toEqual(later);
      expect(await webhooks().noteAttempt(newId(), false, later)).toBeNull();
    });

    it('deletes a webhook once, with its deliveries', async () => {
      const user = await seedUser(storage().repos);
      const post = await seedPost(storage().repos, { userId: user.id });
      const webhook = makeWebhook(user.id, user.id);
      const kept = makeWebhook(user.id, user.id);
      await webhooks().insert(webhook);
      await webhooks().insert(kept);
      const delivery = makeDelivery(webhook, post.id);
      const keptDelivery = makeDelivery(kept, post.id);
      await storage().repos.deliveries.insertMany([delivery, keptDelivery]);

      expect(await webhooks().delete(webhook.id)).toBe(true);
      expect(await webhooks().findById(webhook.id)).toBeNull();
      expect(await storage().repos.deliveries.findById(delivery.id)).toBeNull();
      expect(await storage().repos.deliveries.listByWebhook(webhook.id, 10)).toEqual([]);
      expect(await storage().repos.deliveries.findById(keptDelivery.id)).toEqual(keptDelivery);
      expect(await webhooks().delete(webhook.id)).toBe(false);
    });

    it('returns copies', async () => {
      const user = await seedUser(storage().repos);
      const webhook = makeWebhook(user.id, user.id, { events: ['post.published'] });
      await webhooks().insert(webhook);
      const stored = structuredClone(webhook);
      webhook.events.push('post.failed');
      const found = await webhooks().findById(stored.id);
      expect(found).toEqual(stored);
      found?.events.push('post.partial');
      expect(await webhooks().findById(stored.id)).toEqual(stored);
    });
  });
}
