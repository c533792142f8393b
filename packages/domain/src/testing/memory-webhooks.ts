import type { WebhookDelivery } from '../model.ts';
import type { DeliveryRepository, PostTransition, WebhookRepository } from '../ports/index.ts';
import { reachesConnections } from '../rules/webhook-rules.ts';
import { ConstraintError, copy, type MemoryStore } from './memory-store.ts';

const newestFirst = <T extends { createdAt: Date; id: string }>(a: T, b: T) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export function memoryWebhookRepository(store: MemoryStore): WebhookRepository {
  const rows = () => store.tables.webhooks;
  const oldestFirst = () =>
    [...rows().values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return {
    async insert(webhook) {
      store.insertUnique(rows(), webhook.id, webhook, 'webhook');
    },
    async findById(id) {
      return copy(rows().get(id) ?? null);
    },
    async listByAccount(accountId) {
      return copy(oldestFirst().filter((w) => w.accountId === accountId));
    },
    async countByAccount(accountId) {
      return [...rows().values()].filter((w) => w.accountId === accountId).length;
    },
    async listActiveForEvent(accountId, event, socialAccountIds) {
      return copy(
        oldestFirst().filter(
          (w) =>
            w.accountId === accountId &&
            w.active &&
            w.events.includes(event) &&
            (socialAccountIds === undefined || reachesConnections(w, socialAccountIds)),
        ),
      );
    },
    async setActive(id, active) {
      const webhook = rows().get(id);
      if (!webhook) return false;
      Object.assign(webhook, { active, disabledReason: null, failingSince: null });
      return true;
    },
    async disable(id, reason) {
      const webhook = rows().get(id);
      if (!webhook) return false;
      Object.assign(webhook, { active: false, disabledReason: reason });
      return true;
    },
    async noteAttempt(id, delivered, at) {
      const webhook = rows().get(id);
      if (!webhook) return null;
      webhook.failingSince = delivered ? null : (webhook.failingSince ?? new Date(at));
      return copy(webhook.failingSince);
    },
    async delete(id) {
      // Like ON DELETE CASCADE: the webhook's deliveries and their attempts go with it.
      const { deliveries, attempts } = store.tables;
      for (const delivery of [...deliveries.values()]) {
        if (delivery.webhookId !== id) continue;
        deliveries.delete(delivery.id);
        for (const attempt of [...attempts.values()]) {
          if (attempt.deliveryId === delivery.id) attempts.delete(attempt.id);
        }
      }
      return rows().delete(id);
    },
  };
}

export function memoryDeliveryRepository(store: MemoryStore): DeliveryRepository {
  const rows = () => store.tables.deliveries;
  const attempts = () => store.tables.attempts;
  return {
    async insertMany(deliveries: WebhookDelivery[], onlyIf?: PostTransition): Promise<never> {
      // Checked before any write, so a failure changes nothing (like the one SQL statement).
      const ids = new Set<string>();
      for (const delivery of deliveries) {
        if (rows().has(delivery.id) || ids.has(delivery.id)) {
          throw new ConstraintError(`duplicate delivery: ${delivery.id}`);
        }
        ids.add(delivery.id);
      }
      if (onlyIf) {
        const post = store.tables.posts.get(onlyIf.postId);
        if (!post || !onlyIf.from.includes(post.status)) return false as never;
        post.status = onlyIf.to;
        post.updatedAt = new Date(onlyIf.at);
      }
      for (const delivery of deliveries) rows().set(delivery.id, copy(delivery));
      // `never`: the overloads of the port return void without `onlyIf`, a boolean with it.
      return (onlyIf ? true : undefined) as never;
    },
    async findById(id) {
      return copy(rows().get(id) ?? null);
    },
    async findWithWebhook(id) {
      const delivery = rows().get(id);
      const webhook = delivery ? store.tables.webhooks.get(delivery.webhookId) : undefined;
      return delivery && webhook ? copy({ delivery, webhook }) : null;
    },
    async listByWebhook(webhookId, limit) {
      const log = [...attempts().values()].sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
      );
      return copy(
        [...rows().values()]
          .filter((d) => d.webhookId === webhookId)
          .sort(newestFirst)
          .slice(0, limit)
          .map((d) => ({ ...d, attemptLog: log.filter((a) => a.deliveryId === d.id) })),
      );
    },
    async recordAttempt(attempt, update) {
      const delivery = rows().get(attempt.deliveryId);
      if (!delivery) throw new Error(`no delivery ${attempt.deliveryId}`);
      store.insertUnique(attempts(), attempt.id, attempt, 'delivery attempt');
      Object.assign(delivery, copy(update), {
        attempts: delivery.attempts + 1,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
      });
    },
    async reset(id, nextAttemptAt) {
      const delivery = rows().get(id);
      if (!delivery) return;
      Object.assign(delivery, {
        status: 'pending',
        attempts: 0,
        nextAttemptAt: new Date(nextAttemptAt),
        deliveredAt: null,
      });
    },
    async findDue(now, limit) {
      const at = (d: { nextAttemptAt: Date | null }) => d.nextAttemptAt?.getTime() ?? 0;
      return copy(
        [...rows().values()]
          .filter((d) => d.status === 'pending' && at(d) <= now.getTime())
          .sort((a, b) => at(a) - at(b))
          .slice(0, limit),
      );
    },
  };
}
