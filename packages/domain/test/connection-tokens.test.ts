import { describe, expect, it } from 'vitest';
import {
  createWebhook,
  expireConnection,
  processPublishJob,
  refreshExpiringTokens,
  sandboxOutcome,
  secretBinding,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedOAuth,
  ScriptedPlatformRegistry,
  seedConnection,
  seedUser,
} from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function setup() {
  const tiktok = new ScriptedOAuth('tiktok');
  const platforms = new ScriptedPlatformRegistry().withOAuth(tiktok);
  const deps = createTestDeps({ platforms });
  const alice = await seedUser(deps, 'alice@example.com');
  return { deps, alice, tiktok };
}

const inMinutes = (deps: { clock: { now(): Date } }, minutes: number) =>
  new Date(deps.clock.now().getTime() + minutes * 60_000);

describe('refreshExpiringTokens', () => {
  it('renews tokens expiring within the margin and stores the rotated refresh token at once', async () => {
    const { deps, alice, tiktok } = await setup();
    const soon = await seedConnection(deps, alice.user.id, 'tiktok', {
      accessToken: 'old-access',
      refreshToken: 'old-refresh',
      tokenExpiresAt: inMinutes(deps, 5),
    });
    const later = await seedConnection(deps, alice.user.id, 'tiktok', {
      externalId: 'later',
      tokenExpiresAt: inMinutes(deps, 60 * 24),
    });
    tiktok.refreshWith(() => ({
      kind: 'refreshed',
      tokens: {
        accessToken: 'new-access',
        refreshToken: 'new-refresh',
        expiresAt: inMinutes(deps, 60 * 24),
        scopes: [],
      },
    }));
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 1, expired: 0, failed: 0 });
    expect(tiktok.refreshes).toEqual([
      { externalId: soon.externalId, accessToken: 'old-access', refreshToken: 'old-refresh' },
    ]);
    const renewed = await deps.repos.socialAccounts.findById(soon.id);
    expect(
      deps.cipher.decrypt(
        renewed?.accessTokenCiphertext ?? '',
        secretBinding.accessToken(renewed?.id ?? ''),
      ),
    ).toBe('new-access');
    expect(
      deps.cipher.decrypt(
        renewed?.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(renewed?.id ?? ''),
      ),
    ).toBe('new-refresh');
    expect(renewed?.tokenExpiresAt).toEqual(inMinutes(deps, 60 * 24));
    expect((await deps.repos.socialAccounts.findById(later.id))?.tokenExpiresAt).toEqual(
      later.tokenExpiresAt,
    );
    // Renewed: nothing is due on the next pass.
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 0 });
  });

  it('keeps the refresh token when the platform sends none', async () => {
    const { deps, alice, tiktok } = await setup();
    const connection = await seedConnection(deps, alice.user.id, 'tiktok', {
      refreshToken: 'keep-me',
      tokenExpiresAt: inMinutes(deps, 1),
    });
    tiktok.refreshWith(() => ({
      kind: 'refreshed',
      tokens: { accessToken: 'a2', refreshToken: null, expiresAt: inMinutes(deps, 60), scopes: [] },
    }));
    await refreshExpiringTokens(deps);
    const renewed = await deps.repos.socialAccounts.findById(connection.id);
    expect(
      deps.cipher.decrypt(
        renewed?.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(renewed?.id ?? ''),
      ),
    ).toBe('keep-me');
  });

  it('a refused renewal expires the connection and tells the subscribed webhooks', async () => {
    const { deps, alice, tiktok } = await setup();
    const connection = await seedConnection(deps, alice.user.id, 'tiktok', {
      refreshToken: 'revoked',
      tokenExpiresAt: inMinutes(deps, 1),
    });
    const subscribed = unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://hooks.example.com/expired',
        events: ['social_account.expired'],
      }),
    );
    await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/posts',
      events: ['post.published'],
    });
    tiktok.refreshWith(() => ({ kind: 'refused', reason: 'invalid_grant: refresh token revoked' }));
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 1, failed: 0 });
    expect((await deps.repos.socialAccounts.findById(connection.id))?.status).toBe('expired');
    const deliveries = [...deps.store.tables.deliveries.values()];
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      webhookId: subscribed.id,
      event: 'social_account.expired',
      postId: null,
    });
    expect(JSON.parse(deliveries[0]?.payload ?? '')).toEqual({
      event: 'social_account.expired',
      account_id: alice.ctx.accountId,
      social_account_id: connection.id,
      platform: 'tiktok',
      timestamp: deps.clock.now().toISOString(),
      data: { reason: 'invalid_grant: refresh token revoked' },
      event_id: expect.stringMatching(UUID),
    });
    expect(Object.keys(JSON.parse(deliveries[0]?.payload ?? ''))).toEqual([
      'event',
      'account_id',
      'social_account_id',
      'platform',
      'timestamp',
      'data',
      'event_id',
    ]);
    expect(deps.queue.enqueued).toContainEqual({
      kind: 'deliver',
      id: deliveries[0]?.id,
      runAt: null,
    });
    // Expired connections are not claimed again; expiring twice notifies once.
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 0 });
    await expireConnection(deps, connection, 'again');
    expect(deps.store.tables.deliveries.size).toBe(1);
  });

  it('a transient failure is retried on a later pass, after the lease', async () => {
    const { deps, alice, tiktok } = await setup();
    await seedConnection(deps, alice.user.id, 'tiktok', { tokenExpiresAt: inMinutes(deps, 1) });
    tiktok.refreshWith(() => ({ kind: 'failed', reason: 'token endpoint answered 503' }));
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 1 });
    // Held by the lease of the pass that failed: not hammered at once.
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 0 });
    deps.clock.advance(deps.settings.tokenRefreshLeaseMs + 1);
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 1 });
  });

  it('skips sandbox connections and platforms without renewal', async () => {
    const { deps, alice, tiktok } = await setup();
    await seedConnection(deps, alice.user.id, 'tiktok', {
      sandbox: true,
      tokenExpiresAt: inMinutes(deps, 1),
    });
    await seedConnection(deps, alice.user.id, 'youtube', { tokenExpiresAt: inMinutes(deps, 1) });
    tiktok.refreshWith(() => ({ kind: 'failed', reason: 'must not be called' }));
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 0, expired: 0, failed: 0 });
    expect(tiktok.refreshes).toEqual([]);
  });
});

describe('a publisher reporting the connection expired', () => {
  it('marks it expired and sends social_account.expired', async () => {
    const { deps, alice } = await setup();
    const connection = await seedConnection(deps, alice.user.id, 'tiktok');
    await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/expired',
      events: ['social_account.expired'],
    });
    const { createPost } = await import('../src/index.ts');
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [connection.id], media_urls: ['https://cdn.example.com/v.mp4'] },
        'now',
      ),
    );
    deps.platforms.publisher('tiktok').script({ kind: 'connection_expired', message: 'revoked' });
    await processPublishJob(deps, post.id, jobCtx());
    expect((await deps.repos.socialAccounts.findById(connection.id))?.status).toBe('expired');
    const events = [...deps.store.tables.deliveries.values()].map((d) => d.event);
    expect(events).toContain('social_account.expired');
  });
});

describe('sandbox targets', () => {
  const post = (options: Record<string, unknown> = {}) =>
    ({
      id: 'p',
      platformOptions: { twitter: options },
    }) as unknown as Parameters<typeof sandboxOutcome>[0];
  const target = (attempts: number) =>
    ({ id: 't1', platform: 'twitter', attempts }) as unknown as Parameters<
      typeof sandboxOutcome
    >[1];

  it('publish with a sandbox- id by default', () => {
    expect(sandboxOutcome(post(), target(1))).toEqual({
      kind: 'published',
      platformPostId: 'sandbox-t1',
      platformUrl: null,
    });
  });

  it('fail permanently or transiently twice when asked', () => {
    expect(sandboxOutcome(post({ sandbox_outcome: 'failed' }), target(1))).toMatchObject({
      kind: 'failed',
      code: 'sandbox_failed',
      retryable: false,
    });
    const transient = post({ sandbox_outcome: 'transient' });
    expect(sandboxOutcome(transient, target(1))).toMatchObject({ retryable: true });
    expect(sandboxOutcome(transient, target(2))).toMatchObject({ retryable: true });
    expect(sandboxOutcome(transient, target(3)).kind).toBe('published');
  });

  it('never call the platform, through the whole publish job', async () => {
    const { deps, alice } = await setup();
    const { connectSocialAccount, createPost } = await import('../src/index.ts');
    const sandbox = unwrap(
      await connectSocialAccount(deps, alice.ctx, { platform: 'twitter', sandbox: true }),
    );
    expect(sandbox).toMatchObject({ sandbox: true, externalId: `sandbox-${sandbox.id}` });
    const created = unwrap(
      await createPost(deps, alice.ctx, { content: 'hi', social_account_ids: [sandbox.id] }, 'now'),
    );
    expect(created.targets[0]?.sandbox).toBe(true);
    await processPublishJob(deps, created.id, jobCtx());
    const done = await deps.repos.posts.findById(created.id);
    expect(done?.status).toBe('published');
    expect(done?.targets[0]?.platformPostId).toBe(`sandbox-${created.targets[0]?.id}`);
    expect(deps.platforms.allCalls()).toEqual([]);
  });
});
