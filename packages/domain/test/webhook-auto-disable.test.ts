/** Auto-disable: a webhook whose every attempt failed for WEBHOOK_DISABLE_AFTER_DAYS is turned off. */
import { describe, expect, it } from 'vitest';
import { createWebhook, deliverWebhook, listWebhooks, setWebhookActive } from '../src/index.ts';
import { createTestDeps, seedUser, type TestDeps } from '../src/testing/index.ts';
import { jobCtx, storeDelivery, unwrap } from './support.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function setup(days?: number) {
  // One attempt per delivery: each failure closes its delivery, the streak runs across them.
  const deps = createTestDeps({
    settings: {
      deliveryRetryScheduleMs: [],
      ...(days === undefined ? {} : { webhookDisableAfterDays: days }),
    },
  });
  const alice = await seedUser(deps);
  const webhook = unwrap(
    await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/in',
      events: ['post.published'],
    }),
  );
  return { deps, alice, webhook };
}

/** A new delivery to the webhook, attempted now with the given answer. */
async function attempt(deps: TestDeps, webhookId: string, accountId: string, statusCode: number) {
  const delivery = await storeDelivery(deps, { webhookId, accountId });
  deps.webhookSender.respond({ statusCode });
  await deliverWebhook(deps, delivery.id, jobCtx());
  return (await deps.repos.deliveries.findById(delivery.id)) ?? delivery;
}

const stored = async (deps: TestDeps, id: string) => {
  const webhook = await deps.repos.webhooks.findById(id);
  if (!webhook) throw new Error('webhook vanished');
  return webhook;
};

describe('webhook auto-disable', () => {
  it('turns the webhook off once every attempt failed for 5 days, saying why', async () => {
    const { deps, alice, webhook } = await setup();
    const started = deps.clock.now();
    await attempt(deps, webhook.id, alice.user.id, 500);
    expect(await stored(deps, webhook.id)).toMatchObject({ active: true, failingSince: started });
    deps.clock.advance(5 * DAY - HOUR);
    await attempt(deps, webhook.id, alice.user.id, 503);
    expect(await stored(deps, webhook.id)).toMatchObject({ active: true, disabledReason: null });
    deps.clock.advance(HOUR);
    const last = await attempt(deps, webhook.id, alice.user.id, 502);
    expect(last.status).toBe('failed');
    const disabled = await stored(deps, webhook.id);
    expect(disabled.active).toBe(false);
    expect(disabled.disabledReason).toBe(
      `every delivery failed for 5 days (since ${started.toISOString()}); last error: HTTP 502`,
    );
    const [listed] = await listWebhooks(deps, alice.ctx);
    expect(listed?.disabledReason).toBe(disabled.disabledReason);
  });

  it('a delivered attempt ends the failing streak', async () => {
    const { deps, alice, webhook } = await setup();
    await attempt(deps, webhook.id, alice.user.id, 500);
    deps.clock.advance(4 * DAY);
    await attempt(deps, webhook.id, alice.user.id, 200);
    expect((await stored(deps, webhook.id)).failingSince).toBeNull();
    deps.clock.advance(2 * DAY);
    const restarted = deps.clock.now();
    await attempt(deps, webhook.id, alice.user.id, 500);
    deps.clock.advance(4 * DAY);
    await attempt(deps, webhook.id, alice.user.id, 500);
    expect(await stored(deps, webhook.id)).toMatchObject({
      active: true,
      failingSince: restarted,
    });
  });

  it('follows WEBHOOK_DISABLE_AFTER_DAYS', async () => {
    const { deps, alice, webhook } = await setup(2);
    await attempt(deps, webhook.id, alice.user.id, 500);
    deps.clock.advance(2 * DAY);
    await attempt(deps, webhook.id, alice.user.id, 500);
    expect((await stored(deps, webhook.id)).disabledReason).toMatch(
      /^every delivery failed for 2 days/,
    );
  });

  it('stops a delivery that still had attempts left when it disables the webhook', async () => {
    const { deps, alice, webhook } = await setup();
    deps.settings.deliveryRetryScheduleMs = [5_000, 60_000];
    await attempt(deps, webhook.id, alice.user.id, 500);
    deps.clock.advance(5 * DAY);
    const delivery = await attempt(deps, webhook.id, alice.user.id, 500);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
  });

  it('enabling it again with PATCH clears the reason and the streak', async () => {
    const { deps, alice, webhook } = await setup();
    await attempt(deps, webhook.id, alice.user.id, 500);
    deps.clock.advance(5 * DAY);
    await attempt(deps, webhook.id, alice.user.id, 500);
    expect((await stored(deps, webhook.id)).active).toBe(false);
    const enabled = unwrap(await setWebhookActive(deps, alice.actor, webhook.id, true));
    expect(enabled).toMatchObject({ active: true, disabledReason: null, failingSince: null });
    expect(await stored(deps, webhook.id)).toMatchObject({
      active: true,
      disabledReason: null,
      failingSince: null,
    });
    // A new streak starts from the next failure, not from the old one.
    deps.clock.advance(HOUR);
    await attempt(deps, webhook.id, alice.user.id, 500);
    expect(await stored(deps, webhook.id)).toMatchObject({ active: true });
  });

  it('410 Gone turns it off with its own reason', async () => {
    const { deps, alice, webhook } = await setup();
    await attempt(deps, webhook.id, alice.user.id, 410);
    expect(await stored(deps, webhook.id)).toMatchObject({
      active: false,
      disabledReason: 'the receiver answered 410 Gone',
    });
  });
});
