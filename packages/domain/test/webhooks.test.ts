import { describe, expect, it } from 'vitest';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  secretBinding,
  setWebhookActive,
  type WebhookDelivery,
} from '../src/index.ts';
import { createTestDeps, seedUser, type TestDeps } from '../src/testing/index.ts';
import { errorOf, UNKNOWN_ID, unwrap } from './support.ts';

const URL_OK = 'https://hooks.example.com/sp';

async function storedDelivery(deps: TestDeps, webhookId: string, accountId: string, at: Date) {
  const delivery: WebhookDelivery = {
    id: deps.ids.newId(),
    webhookId,
    accountId,
    postId: UNKNOWN_ID,
    event: 'post.published',
    payload: '{"event":"post.published"}',
    status: 'failed',
    attempts: 8,
    lastStatusCode: 500,
    lastError: 'HTTP 500',
    nextAttemptAt: null,
    deliveredAt: null,
    createdAt: at,
  };
  await deps.repos.deliveries.insertMany([delivery]);
  return delivery;
}

describe('webhooks', () => {
  it('creates an active webhook with a Standard Webhooks secret', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    expect(webhook).toMatchObject({
      accountId: alice.user.id,
      createdBy: alice.user.id,
      url: URL_OK,
      events: ['post.failed'],
      active: true,
      createdAt: deps.clock.now(),
    });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { secret, ...stored } = webhook;
    expect(await listWebhooks(deps, alice.ctx)).toEqual([stored]);
  });

  it('stores the secret sealed and bound to its webhook; it signs with the secret itself', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const [stored] = await listWebhooks(deps, alice.ctx);
    expect(stored?.secretCiphertext).not.toContain(webhook.secret);
    expect(stored?.secretCiphertext).not.toContain(webhook.secret.slice('whsec_'.length));
    expect(
      deps.cipher.decrypt(stored?.secretCiphertext ?? '', secretBinding.webhookSecret(webhook.id)),
    ).toBe(webhook.secret);
  });

  it('rejects http and private targets unless the development settings allow them', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const input = { url: 'http://127.0.0.1:4000/hook', events: ['post.published'] };
    const error = errorOf(await createWebhook(deps, alice.ctx, input));
    if (error.code !== 'validation_failed') throw new Error(error.code);
    expect(error.details.map((d) => d.message)).toEqual([
      'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ]);
    const dev = createTestDeps({
      settings: { webhookAllowHttp: true, webhookAllowPrivateNetworks: true },
    });
    const devUser = await seedUser(dev);
    expect(unwrap(await createWebhook(dev, devUser.ctx, input)).url).toBe(input.url);
  });

  it('enables, disables and deletes reachable webhooks only', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    expect(errorOf(await setWebhookActive(deps, bob.actor, webhook.id, false)).code).toBe(
      'not_found',
    );
    expect(unwrap(await setWebhookActive(deps, alice.actor, webhook.id, false)).active).toBe(false);
    expect((await deps.repos.webhooks.findById(webhook.id))?.active).toBe(false);
    expect(unwrap(await setWebhookActive(deps, alice.actor, webhook.id, true)).active).toBe(true);
    expect(errorOf(await deleteWebhook(deps, bob.actor, webhook.id)).code).toBe('not_found');
    unwrap(await deleteWebhook(deps, alice.actor, webhook.id));
    expect(errorOf(await deleteWebhook(deps, alice.actor, webhook.id)).code).toBe('not_found');
    expect(errorOf(await setWebhookActive(deps, alice.actor, 'nope', true)).code).toBe('not_found');
  });

  it('reports not_found when the row vanished between read and write', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    deps.repos.webhooks.setActive = async () => false;
    deps.repos.webhooks.delete = async () => false;
    expect(errorOf(await setWebhookActive(deps, alice.actor, webhook.id, false)).code).toBe(
      'not_found',
    );
    expect(errorOf(await deleteWebhook(deps, alice.actor, webhook.id)).code).toBe('not_found');
  });

  it('lists deliveries newest first with their attempts, bounded', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const older = await storedDelivery(deps, webhook.id, alice.user.id, deps.clock.now());
    const newer = await storedDelivery(deps, webhook.id, alice.user.id, deps.clock.advance(1000));
    const listed = unwrap(await listDeliveries(deps, alice.actor, webhook.id));
    expect(listed.map((d) => d.id)).toEqual([newer.id, older.id]);
    expect(listed[0]?.attemptLog).toEqual([]);
    expect(unwrap(await listDeliveries(deps, alice.actor, webhook.id, 1)).map((d) => d.id)).toEqual(
      [newer.id],
    );
    expect(unwrap(await listDeliveries(deps, alice.actor, webhook.id, 0))).toHaveLength(1);
    expect(errorOf(await listDeliveries(deps, bob.actor, webhook.id)).code).toBe('not_found');
  });

  it('redelivers: same id and payload, pending again, enqueued now', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const delivery = await storedDelivery(deps, webhook.id, alice.user.id, deps.clock.now());
    deps.clock.advance(60_000);
    const again = unwrap(await redeliver(deps, alice.actor, webhook.id, delivery.id));
    expect(again).toMatchObject({
      id: delivery.id,
      payload: delivery.payload,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: deps.clock.now(),
    });
    expect(deps.queue.enqueued).toEqual([{ kind: 'deliver', id: delivery.id, runAt: null }]);
  });

  it('redeliver: unknown or foreign deliveries are not_found; a disabled webhook is a conflict', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const one = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const two = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const delivery = await storedDelivery(deps, one.id, alice.user.id, deps.clock.now());
    expect(errorOf(await redeliver(deps, alice.actor, two.id, delivery.id)).code).toBe('not_found');
    expect(errorOf(await redeliver(deps, alice.actor, one.id, UNKNOWN_ID)).code).toBe('not_found');
    unwrap(await setWebhookActive(deps, alice.actor, one.id, false));
    expect(errorOf(await redeliver(deps, alice.actor, one.id, delivery.id)).code).toBe('conflict');
  });

  it('redeliver survives a failing enqueue', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const webhook = unwrap(
      await createWebhook(deps, alice.ctx, { url: URL_OK, events: ['post.failed'] }),
    );
    const delivery = await storedDelivery(deps, webhook.id, alice.user.id, deps.clock.now());
    deps.queue.failEnqueues = 1;
    expect(unwrap(await redeliver(deps, alice.actor, webhook.id, delivery.id)).status).toBe(
      'pending',
    );
    expect(deps.logger.at('warn')).toHaveLength(1);
  });
});
