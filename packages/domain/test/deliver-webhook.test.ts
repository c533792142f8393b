import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhook, deliverWebhook, signPayload } from '../src/index.ts';
import { createTestDeps, seedUser, sendResult, type TestDeps } from '../src/testing/index.ts';
import { jobCtx, storeDelivery, UNKNOWN_ID, unwrap } from './support.ts';

const SCHEDULE = [5_000, 300_000, 1_800_000];

async function setup() {
  const deps = createTestDeps({ settings: { deliveryRetryScheduleMs: SCHEDULE } });
  const alice = await seedUser(deps);
  const webhook = unwrap(
    await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/in',
      events: ['post.published'],
    }),
  );
  const delivery = await storeDelivery(deps, { webhookId: webhook.id, accountId: alice.user.id });
  return { deps, alice, webhook, delivery };
}

const load = async (deps: TestDeps, id: string) => {
  const found = await deps.repos.deliveries.findById(id);
  if (!found) throw new Error('delivery vanished');
  return found;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('deliverWebhook', () => {
  it('sends the stored payload byte for byte with both signatures and records the delivery', async () => {
    const { deps, webhook, delivery } = await setup();
    vi.useFakeTimers({ now: deps.clock.now(), toFake: ['Date'] });
    try {
      expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
      const [request] = deps.webhookSender.requests;
      expect(request?.url).toBe('https://hooks.example.com/in');
      expect(request?.body).toBe(delivery.payload);
      expect(request?.headers).toMatchObject({
        'Content-Type': 'application/json',
        'User-Agent': 'social-publisher-webhooks/1',
        'X-Social-Publisher-Event': 'post.published',
        'X-Social-Publisher-Signature': signPayload(webhook.secret, delivery.payload),
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(deps.clock.now().getTime() / 1000)),
      });
      expect(
        new StandardWebhook(webhook.secret).verify(request?.body ?? '', request?.headers ?? {}),
      ).toEqual(JSON.parse(delivery.payload));
    } finally {
      vi.useRealTimers();
    }
    expect(await load(deps, delivery.id)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      deliveredAt: deps.clock.now(),
      nextAttemptAt: null,
    });
    const attempts = [...deps.store.tables.attempts.values()];
    expect(attempts).toEqual([
      {
        id: attempts[0]?.id,
        deliveryId: delivery.id,
        attemptNo: 1,
        statusCode: 200,
        error: null,
        durationMs: 5,
        createdAt: deps.clock.now(),
      },
    ]);
  });

  it('follows the retry schedule with ±20% jitter, then gives up', async () => {
    const { deps, delivery } = await setup();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    deps.webhookSender.respond(
      { statusCode: 500 },
      { statusCode: 502 },
      { statusCode: null },
      { statusCode: 503 },
    );
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await deliverWebhook(deps, delivery.id, jobCtx());
      expect(result.kind).toBe('retry');
      if (result.kind === 'retry') delays.push(result.delayMs);
      const stored = await load(deps, delivery.id);
      expect(stored.status).toBe('pending');
      expect(stored.nextAttemptAt).toEqual(new Date(deps.clock.now().getTime() + (delays[i] ?? 0)));
      deps.clock.advance(delays[i] ?? 0);
    }
    expect(delays).toEqual([6_000, 360_000, 2_160_000]);
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(await load(deps, delivery.id)).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastStatusCode: 503,
      lastError: 'HTTP 503',
    });
    expect(deps.webhookSender.requests).toHaveLength(4);
    expect([...deps.store.tables.attempts.values()].map((a) => a.attemptNo)).toEqual([1, 2, 3, 4]);
  });

  it('jitter goes down as well as up', async () => {
    const { deps, delivery } = await setup();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    deps.webhookSender.respond({ statusCode: 500 });
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toMatchObject({
      kind: 'retry',
      delayMs: 4_000,
    });
  });

  it('honours Retry-After when longer than the schedule, capped at a day', async () => {
    const { deps, delivery } = await setup();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    deps.webhookSender.respond(
      { statusCode: 429, retryAfterMs: 120_000 },
      { statusCode: 503, retryAfterMs: 1_000 },
      { statusCode: 503, retryAfterMs: 7 * 24 * 3_600_000 },
    );
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toMatchObject({ delayMs: 120_000 });
    deps.clock.advance(120_000);
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toMatchObject({ delayMs: 300_000 });
    deps.clock.advance(300_000);
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toMatchObject({
      delayMs: 86_400_000,
    });
  });

  it('410 Gone disables the webhook and fails the delivery', async () => {
    const { deps, webhook, delivery } = await setup();
    deps.webhookSender.respond({ statusCode: 410 });
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect((await deps.repos.webhooks.findById(webhook.id))?.active).toBe(false);
    expect(await load(deps, delivery.id)).toMatchObject({ status: 'failed', lastStatusCode: 410 });
  });

  it('a non-retryable send result fails at once', async () => {
    const { deps, delivery } = await setup();
    deps.webhookSender.respond({ statusCode: null, error: 'address refused', retryable: false });
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(await load(deps, delivery.id)).toMatchObject({
      status: 'failed',
      lastError: 'address refused',
    });
  });

  it('a sender that throws counts as a retryable failed attempt', async () => {
    const { deps, delivery } = await setup();
    deps.webhookSender.respond(new Error('boom'));
    expect((await deliverWebhook(deps, delivery.id, jobCtx())).kind).toBe('retry');
    expect(await load(deps, delivery.id)).toMatchObject({
      status: 'pending',
      lastError: 'boom',
      lastStatusCode: null,
    });
  });

  it('an inactive webhook gets nothing: the delivery fails without a request', async () => {
    const { deps, webhook, delivery } = await setup();
    await deps.repos.webhooks.setActive(webhook.id, false);
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.webhookSender.requests).toEqual([]);
    expect(await load(deps, delivery.id)).toMatchObject({
      status: 'failed',
      lastError: 'webhook disabled',
    });
  });

  it('missing, finished or not-yet-due deliveries', async () => {
    const { deps, delivery } = await setup();
    expect(await deliverWebhook(deps, UNKNOWN_ID, jobCtx())).toEqual({ kind: 'done' });
    await deps.repos.deliveries.reset(delivery.id, new Date(deps.clock.now().getTime() + 10_000));
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({
      kind: 'retry',
      delayMs: 10_000,
      reason: 'next attempt not due yet',
    });
    deps.clock.advance(10_000);
    await deliverWebhook(deps, delivery.id, jobCtx());
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.webhookSender.requests).toHaveLength(1);
  });

  it('a delivery whose webhook is gone is left alone', async () => {
    const { deps, delivery } = await setup();
    deps.store.tables.webhooks.clear();
    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.webhookSender.requests).toEqual([]);
  });

  it('sendResult describes statuses like the real sender', () => {
    expect(sendResult(204)).toMatchObject({ error: null });
    expect(sendResult(null)).toMatchObject({ error: 'connection refused' });
  });
});
