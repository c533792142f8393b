/**
 * Secrets at rest are bound to their rows: a ciphertext copied to another row does not
 * decrypt, and the job that meets it ends with a clear error instead of a crash or a retry loop.
 */
import { describe, expect, it } from 'vitest';
import {
  createPost,
  createWebhook,
  deliverWebhook,
  processPublishJob,
  refreshExpiringTokens,
  signPayload,
  type Webhook,
  type WebhookDelivery,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedOAuth,
  ScriptedPlatformRegistry,
  seedConnection,
  seedUser,
  type TestDeps,
} from '../src/testing/index.ts';
import { jobCtx, storeDelivery, unwrap } from './support.ts';

const VIDEO = 'https://cdn.example.com/clip.mp4';

const deliveryFor = (deps: TestDeps, webhook: Webhook): Promise<WebhookDelivery> =>
  storeDelivery(deps, { webhookId: webhook.id, accountId: webhook.accountId });

describe('secrets bound to their rows', () => {
  it('a webhook secret copied to another webhook does not sign: the delivery fails, said why', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const original = unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://hooks.example.com/a',
        events: ['post.published'],
      }),
    );
    const { secret: _shown, ...stored } = original;
    const copy: Webhook = { ...stored, id: deps.ids.newId(), url: 'https://evil.example.com/b' };
    await deps.repos.webhooks.insert(copy);
    const delivery = await deliveryFor(deps, copy);

    expect(await deliverWebhook(deps, delivery.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.webhookSender.requests).toHaveLength(0);
    const after = await deps.repos.deliveries.findById(delivery.id);
    expect(after?.status).toBe('failed');
    expect(after?.lastError).toMatch(/cannot be decrypted.*copied from another row/);
    expect(after?.lastError).not.toContain(original.secret);
  });

  it('a webhook stored before secrets were encrypted still signs with its plaintext secret', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const legacy: Webhook = {
      id: deps.ids.newId(),
      accountId: alice.user.id,
      createdBy: alice.user.id,
      url: 'https://hooks.example.com/legacy',
      events: ['post.published'],
      socialAccountIds: null,
      active: true,
      disabledReason: null,
      failingSince: null,
      secretCiphertext: 'whsec_bGVnYWN5LXNlY3JldC1ieXRlcy0xMjM0',
      createdAt: deps.clock.now(),
    };
    await deps.repos.webhooks.insert(legacy);
    const delivery = await deliveryFor(deps, legacy);
    await deliverWebhook(deps, delivery.id, jobCtx());
    const [request] = deps.webhookSender.requests;
    expect(request?.headers['X-Social-Publisher-Signature']).toBe(
      signPayload(legacy.secretCiphertext, delivery.payload),
    );
  });

  it('a token copied to another connection fails its target for good, without calling the platform', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const source = await seedConnection(deps, alice.user.id, 'tiktok', { accessToken: 'real' });
    const target = await seedConnection(deps, alice.user.id, 'tiktok', { externalId: 'other' });
    await deps.repos.socialAccounts.updateTokens(
      target.id,
      {
        accessTokenCiphertext: source.accessTokenCiphertext,
        refreshTokenCiphertext: null,
        tokenExpiresAt: null,
      },
      deps.clock.now(),
    );
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { content: 'x', social_account_ids: [target.id], media_urls: [VIDEO] },
        'now',
      ),
    );
    await processPublishJob(deps, post.id, jobCtx());
    const stored = await deps.repos.posts.findById(post.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.targets[0]).toMatchObject({
      status: 'failed',
      errorCode: 'token_unreadable',
      retryable: false,
    });
    expect(stored?.targets[0]?.errorMessage).toMatch(/cannot be decrypted.*reconnect/);
    expect(deps.platforms.publisher('tiktok').calls).toHaveLength(0);
  });

  it('the token refresh pass skips an unreadable connection and renews the others', async () => {
    const tiktok = new ScriptedOAuth('tiktok');
    const deps = createTestDeps({ platforms: new ScriptedPlatformRegistry().withOAuth(tiktok) });
    const alice = await seedUser(deps);
    const soon = new Date(deps.clock.now().getTime() + 60_000);
    const good = await seedConnection(deps, alice.user.id, 'tiktok', {
      refreshToken: 'r1',
      tokenExpiresAt: soon,
    });
    const bad = await seedConnection(deps, alice.user.id, 'tiktok', {
      externalId: 'bad',
      refreshToken: 'r2',
      tokenExpiresAt: soon,
    });
    await deps.repos.socialAccounts.updateTokens(
      bad.id,
      {
        accessTokenCiphertext: good.accessTokenCiphertext,
        refreshTokenCiphertext: good.refreshTokenCiphertext,
        tokenExpiresAt: soon,
      },
      deps.clock.now(),
    );
    tiktok.refreshWith(() => ({
      kind: 'refreshed',
      tokens: { accessToken: 'a2', refreshToken: 'r3', expiresAt: null, scopes: [] },
    }));
    const result = await refreshExpiringTokens(deps);
    expect(result).toEqual({ refreshed: 1, expired: 0, failed: 1 });
    expect(tiktok.refreshes).toEqual([
      { externalId: good.externalId, accessToken: 'token-tiktok', refreshToken: 'r1' },
    ]);
  });
});
