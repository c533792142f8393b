import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createPost,
  createWebhook,
  DependencyUnavailableError,
  listDeliveries,
  type Platform,
  type PublishRequest,
  processPublishJob,
  secretBinding,
  setWebhookActive,
} from '../src/index.ts';
import {
  createTestDeps,
  failedOutcome,
  memoryStorageTesting,
  published,
  seedConnection,
  seedUser,
  type TestDeps,
} from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const VIDEO = 'https://cdn.example.com/clip.mp4';

async function setup(platforms: Platform[] = ['tiktok', 'youtube'], settings = {}) {
  const deps = createTestDeps({ settings });
  const alice = await seedUser(deps, 'alice@example.com');
  const connections = [];
  for (const platform of platforms)
    connections.push(await seedConnection(deps, alice.user.id, platform));
  const post = unwrap(
    await createPost(
      deps,
      alice.ctx,
      { content: 'hello', social_account_ids: connections.map((c) => c.id), media_urls: [VIDEO] },
      'now',
    ),
  );
  return { deps, alice, connections, post };
}

const statusOf = async (deps: TestDeps, postId: string) =>
  (await deps.repos.posts.findById(postId))?.status;
const targetsOf = async (deps: TestDeps, postId: string) =>
  (await deps.repos.posts.findById(postId))?.targets ?? [];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('processPublishJob: outcomes and webhooks', () => {
  it('publishes every target, sets the post published and notifies subscribed active webhooks', async () => {
    const { deps, alice, post } = await setup();
    const hook = unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.published'],
      }),
    );
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://b.example.com/h',
        events: ['post.failed'],
      }),
    );
    const disabled = unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://c.example.com/h',
        events: ['post.published'],
      }),
    );
    unwrap(await setWebhookActive(deps, alice.actor, disabled.id, false));
    const bob = await seedUser(deps);
    unwrap(
      await createWebhook(deps, bob.ctx, {
        url: 'https://d.example.com/h',
        events: ['post.published'],
      }),
    );

    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    const stored = await deps.repos.posts.findById(post.id);
    expect(stored?.status).toBe('published');
    expect(stored?.targets.map((t) => [t.status, t.platformPostId, t.attempts])).toEqual([
      ['published', `tiktok-${post.targets[0]?.id}`, 1],
      ['published', `youtube-${post.targets[1]?.id}`, 1],
    ]);
    const deliveries = unwrap(await listDeliveries(deps, alice.actor, hook.id));
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      event: 'post.published',
      status: 'pending',
      attempts: 0,
    });
    const eventId = JSON.parse(deliveries[0]?.payload ?? '{}').event_id;
    expect(eventId).toMatch(UUID);
    expect(deliveries[0]?.payload).toBe(
      JSON.stringify({
        event: 'post.published',
        account_id: alice.user.id,
        post_id: post.id,
        timestamp: deps.clock.now().toISOString(),
        data: { published: 2, failed: 0, total: 2 },
        event_id: eventId,
      }),
    );
    expect(deps.queue.enqueued.filter((e) => e.kind === 'deliver')).toEqual([
      { kind: 'deliver', id: deliveries[0]?.id, runAt: null },
    ]);
    expect(deps.store.tables.deliveries.size).toBe(1);
  });

  it('one published and one failed target: partial, post.partial with published 1, failed 1, total 2 and nothing else', async () => {
    const { deps, alice, post } = await setup();
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.partial'],
      }),
    );
    deps.platforms
      .publisher('youtube')
      .script(failedOutcome('quotaExceeded', 'The request cannot be completed', false));
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(await statusOf(deps, post.id)).toBe('partial');
    const [delivery] = [...deps.store.tables.deliveries.values()];
    expect(delivery?.event).toBe('post.partial');
    expect(JSON.parse(delivery?.payload ?? '{}')).toMatchObject({
      event: 'post.partial',
      data: { published: 1, failed: 1, total: 2 },
    });
    const youtube = (await targetsOf(deps, post.id))[1];
    expect(youtube).toMatchObject({
      status: 'failed',
      errorCode: 'quotaExceeded',
      errorMessage: 'The request cannot be completed',
      retryable: false,
    });
    // The contract's fields only: the counts, no per-target reasons (GET /posts/:id has them).
    const { data } = JSON.parse(delivery?.payload ?? '{}');
    expect(data).toEqual({ published: 1, failed: 1, total: 2 });
  });

  it('all failed: post.failed payload with only failed and total', async () => {
    const { deps, alice, post } = await setup();
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.failed', 'post.partial'],
      }),
    );
    deps.platforms
      .publisher('tiktok')
      .script(failedOutcome('spam_risk_too_many_posts', 'too many', false));
    deps.platforms
      .publisher('youtube')
      .script(failedOutcome('uploadLimitExceeded', 'limit', false));
    await processPublishJob(deps, post.id, jobCtx());
    expect(await statusOf(deps, post.id)).toBe('failed');
    const [delivery] = [...deps.store.tables.deliveries.values()];
    const body = JSON.parse(delivery?.payload ?? '{}');
    expect(body.event).toBe('post.failed');
    // Only failed and total, as the contract says: no data.published, no per-target reasons.
    expect(body.data).toEqual({ failed: 2, total: 2 });
    expect(Object.keys(body)).toEqual([
      'event',
      'account_id',
      'post_id',
      'timestamp',
      'data',
      'event_id',
    ]);
  });

  it('all published: post.published carries only the counts', async () => {
    const { deps, alice, post } = await setup();
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.published'],
      }),
    );
    await processPublishJob(deps, post.id, jobCtx());
    const [delivery] = [...deps.store.tables.deliveries.values()];
    expect(JSON.parse(delivery?.payload ?? '{}').data).toEqual({
      published: 2,
      failed: 0,
      total: 2,
    });
  });

  it('a failing delivery enqueue is only logged (the reconciler picks it up)', async () => {
    const { deps, alice, post } = await setup(['twitter']);
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.published'],
      }),
    );
    deps.queue.failEnqueues = 1;
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect([...deps.store.tables.deliveries.values()][0]?.status).toBe('pending');
    expect(deps.logger.at('warn').some((e) => /enqueue of delivery/.test(e.msg ?? ''))).toBe(true);
  });

  it('outcome and deliveries are committed together or not at all', async () => {
    const { deps, alice, post } = await setup(['twitter']);
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.published'],
      }),
    );
    deps.store.failNext('deliveries.insertMany', new Error('db down'));
    await expect(processPublishJob(deps, post.id, jobCtx())).rejects.toThrow('db down');
    expect(await statusOf(deps, post.id)).toBe('publishing');
    expect(deps.store.tables.deliveries.size).toBe(0);
    // the next run finishes the job without publishing again
    expect(await processPublishJob(deps, post.id, jobCtx(2))).toEqual({ kind: 'done' });
    expect(await statusOf(deps, post.id)).toBe('published');
    expect(deps.store.tables.deliveries.size).toBe(1);
    expect(deps.platforms.publisher('twitter').calls).toHaveLength(1);
  });

  it('a finished post is finalized once: a second run creates no second delivery', async () => {
    const { deps, alice, post } = await setup(['twitter']);
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://a.example.com/h',
        events: ['post.published'],
      }),
    );
    await processPublishJob(deps, post.id, jobCtx());
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.store.tables.deliveries.size).toBe(1);
  });
});

describe('processPublishJob: retries', () => {
  it('transient failure: target handed back with its error, retry with backoff, then success', async () => {
    const { deps, post } = await setup(['tiktok'], {
      publishRetryBaseMs: 1000,
      publishRetryMaxMs: 60_000,
    });
    deps.platforms
      .publisher('tiktok')
      .script(failedOutcome('rate_limit_exceeded', 'slow down', true));
    const first = await processPublishJob(deps, post.id, jobCtx(1));
    expect(first.kind).toBe('retry');
    if (first.kind !== 'retry') return;
    expect(first.delayMs).toBeGreaterThanOrEqual(500);
    expect(first.delayMs).toBeLessThanOrEqual(1000);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'pending',
      errorCode: 'rate_limit_exceeded',
      errorMessage: 'slow down',
      attempts: 1,
    });
    expect(await statusOf(deps, post.id)).toBe('publishing');
    expect(await processPublishJob(deps, post.id, jobCtx(2))).toEqual({ kind: 'done' });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'published',
      attempts: 2,
      errorCode: null,
    });
    expect(await statusOf(deps, post.id)).toBe('published');
  });

  it('backoff doubles per attempt, capped, with full jitter', async () => {
    const { deps, post } = await setup(['tiktok'], {
      publishRetryBaseMs: 1000,
      publishRetryMaxMs: 5000,
    });
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const transient = failedOutcome('internal_error', 'HTTP 500', true);
    deps.platforms.publisher('tiktok').script(transient, transient, transient, transient);
    const delays = [];
    for (const attempt of [1, 2, 3, 4]) {
      const result = await processPublishJob(deps, post.id, jobCtx(attempt, 10));
      delays.push(result.kind === 'retry' ? result.delayMs : -1);
    }
    expect(delays).toEqual([1000, 2000, 4000, 5000]);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    deps.platforms.publisher('tiktok').script(transient);
    const low = await processPublishJob(deps, post.id, jobCtx(5, 10));
    expect(low).toMatchObject({ kind: 'retry', delayMs: 500 });
  });

  it('a retried job never calls a publisher for a target already published', async () => {
    const { deps, post } = await setup();
    deps.platforms
      .publisher('youtube')
      .script(
        failedOutcome('backendError', 'try later', true),
        failedOutcome('backendError', 'try later', true),
      );
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    expect((await processPublishJob(deps, post.id, jobCtx(2))).kind).toBe('retry');
    expect(await processPublishJob(deps, post.id, jobCtx(3))).toEqual({ kind: 'done' });
    expect(deps.platforms.publisher('tiktok').calls).toHaveLength(1);
    expect(deps.platforms.publisher('youtube').calls).toHaveLength(3);
    expect(await statusOf(deps, post.id)).toBe('published');
  });

  it('on the last attempt a transient failure becomes final, marked retryable', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.platforms.publisher('tiktok').script(failedOutcome('internal_error', 'HTTP 503', true));
    expect(await processPublishJob(deps, post.id, jobCtx(5, 5))).toEqual({ kind: 'done' });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'failed',
      errorCode: 'internal_error',
      errorMessage: 'HTTP 503 (gave up after 5 attempts)',
      retryable: true,
    });
    expect(await statusOf(deps, post.id)).toBe('failed');
  });

  it('a publisher that throws is a transient internal_error', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.platforms.publisher('tiktok').script(new Error('socket hang up'));
    expect((await processPublishJob(deps, post.id, jobCtx())).kind).toBe('retry');
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'pending',
      errorCode: 'internal_error',
      errorMessage: 'socket hang up',
    });
    deps.platforms.publisher('tiktok').script(() => {
      throw 'a string';
    });
    await processPublishJob(deps, post.id, jobCtx(5, 5));
    expect((await targetsOf(deps, post.id))[0]?.errorMessage).toBe(
      'a string (gave up after 5 attempts)',
    );
  });
});

describe('processPublishJob: resume', () => {
  it('a target with stored progress is resumed, not published again', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.platforms.publisher('tiktok').script(
      async (request: PublishRequest) => {
        await request.saveProgress({ publishId: 'v_pub_1' });
        return failedOutcome('internal_error', 'status poll failed', true);
      },
      (request, mode) => published(`${mode}:${String(request.target.resumeState?.publishId)}`),
    );
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    expect((await targetsOf(deps, post.id))[0]?.resumeState).toEqual({ publishId: 'v_pub_1' });
    await processPublishJob(deps, post.id, jobCtx(2));
    const calls = deps.platforms.publisher('tiktok').calls;
    expect(calls.map((c) => [c.mode, c.resumeState])).toEqual([
      ['publish', null],
      ['resume', { publishId: 'v_pub_1' }],
    ]);
    expect((await targetsOf(deps, post.id))[0]?.platformPostId).toBe('resume:v_pub_1');
  });

  it('a target held under a live lease elsewhere: wait until the lease runs out, then take it over with resume', async () => {
    const { deps, post } = await setup(['tiktok'], { targetLeaseMs: 60_000 });
    const target = post.targets[0];
    if (!target) throw new Error('no target');
    const now = deps.clock.now();
    const lease = new Date(now.getTime() + 60_000);
    await deps.repos.posts.startPublish(post.id, { now, startBefore: now, leaseExpiresAt: lease });
    deps.clock.advance(10_000);
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({
      kind: 'retry',
      delayMs: 50_100,
      reason: 'targets are being published by another worker',
    });
    expect(deps.platforms.publisher('tiktok').calls).toHaveLength(0);
    deps.clock.advance(50_100);
    expect(await processPublishJob(deps, post.id, jobCtx(2))).toEqual({ kind: 'done' });
    expect(deps.platforms.publisher('tiktok').calls.map((c) => c.mode)).toEqual(['resume']);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({ status: 'published', attempts: 2 });
  });

  it('a stalled target whose takeover loses the claim race is retried soon', async () => {
    const { deps, post } = await setup(['tiktok']);
    const target = post.targets[0];
    if (!target) throw new Error('no target');
    const now = deps.clock.now();
    const lease = new Date(now.getTime() - 1);
    await deps.repos.posts.startPublish(post.id, { now, startBefore: now, leaseExpiresAt: lease });
    // Another worker takes the run-out lease first: this run starts with no claims.
    deps.repos.posts.startPublish = async (id) => {
      const current = await deps.repos.posts.findById(id);
      return (
        current && { post: current, started: true, previousStatus: current.status, claims: [] }
      );
    };
    expect(await processPublishJob(deps, post.id, jobCtx())).toMatchObject({
      kind: 'retry',
      delayMs: 100,
    });
  });
});

describe('processPublishJob: connections and platforms', () => {
  it('connection_expired from the publisher marks the connection expired and fails the target', async () => {
    const { deps, post, connections } = await setup(['tiktok']);
    deps.platforms
      .publisher('tiktok')
      .script({ kind: 'connection_expired', message: 'access_token_invalid' });
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect((await deps.repos.socialAccounts.findById(connections[0]?.id ?? ''))?.status).toBe(
      'expired',
    );
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'failed',
      errorCode: 'connection_expired',
      errorMessage: 'access_token_invalid',
      retryable: false,
    });
    expect(await statusOf(deps, post.id)).toBe('failed');
  });

  it('a connection no longer active fails with connection_expired without calling the publisher', async () => {
    const { deps, post, connections } = await setup(['tiktok']);
    await memoryStorageTesting(deps.store).setConnectionStatus(
      connections[0]?.id ?? '',
      'revoked',
      deps.clock.now(),
    );
    await processPublishJob(deps, post.id, jobCtx());
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      errorCode: 'connection_expired',
      retryable: false,
    });
    expect(deps.platforms.publisher('tiktok').calls).toHaveLength(0);
  });

  it('a removed connection fails with connection_missing', async () => {
    const { deps, post, connections } = await setup(['tiktok']);
    await deps.repos.socialAccounts.delete(connections[0]?.id ?? '');
    await processPublishJob(deps, post.id, jobCtx());
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      errorCode: 'connection_missing',
      retryable: false,
    });
  });

  it('a platform without publisher fails with platform_unsupported', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.platforms.remove('tiktok');
    await processPublishJob(deps, post.id, jobCtx());
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      errorCode: 'platform_unsupported',
      retryable: false,
    });
  });

  it('the publisher gets decrypted tokens; refreshed tokens are stored encrypted', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const connection = await seedConnection(deps, alice.user.id, 'youtube', {
      accessToken: 'old-access',
      refreshToken: 'keep-me',
    });
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [connection.id], media_urls: [VIDEO] },
        'now',
      ),
    );
    const expiresAt = new Date('2026-01-01T01:00:00Z');
    deps.platforms.publisher('youtube').script(async (request) => {
      expect(request.connection).toMatchObject({
        accessToken: 'old-access',
        refreshToken: 'keep-me',
      });
      await request.saveTokens({ accessToken: 'new-access', refreshToken: null, expiresAt });
      return published('yt1');
    });
    await processPublishJob(deps, post.id, jobCtx());
    const stored = await deps.repos.socialAccounts.findById(connection.id);
    expect(
      deps.cipher.decrypt(
        stored?.accessTokenCiphertext ?? '',
        secretBinding.accessToken(connection.id),
      ),
    ).toBe('new-access');
    expect(
      deps.cipher.decrypt(
        stored?.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(connection.id),
      ),
    ).toBe('keep-me');
    expect(stored?.tokenExpiresAt).toEqual(expiresAt);
    deps.platforms.publisher('youtube').script(async (request) => {
      await request.saveTokens({ accessToken: 'a3', refreshToken: 'rotated', expiresAt: null });
      return published('yt2');
    });
    const again = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [connection.id], media_urls: [VIDEO] },
        'now',
      ),
    );
    await processPublishJob(deps, again.id, jobCtx());
    const rotated = await deps.repos.socialAccounts.findById(connection.id);
    expect(
      deps.cipher.decrypt(
        rotated?.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(connection.id),
      ),
    ).toBe('rotated');
  });
});

describe('processPublishJob: job lifecycle', () => {
  it('a missing, cancelled or finished post is done without publishing', async () => {
    const { deps, post } = await setup(['tiktok']);
    expect(await processPublishJob(deps, '00000000-0000-7000-8000-0000000000ff', jobCtx())).toEqual(
      { kind: 'done' },
    );
    await deps.repos.posts.transitionStatus(post.id, ['queued'], 'cancelled', deps.clock.now());
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.platforms.allCalls()).toEqual([]);
  });

  it('a cancel landing just before the start leaves the post alone', async () => {
    const { deps, post } = await setup(['tiktok']);
    const { posts } = deps.repos;
    const start = posts.startPublish.bind(posts);
    posts.startPublish = async (id, request) => {
      await posts.transitionStatus(id, ['queued'], 'cancelled', request.now);
      return start(id, request);
    };
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.platforms.allCalls()).toEqual([]);
  });

  it('a job that runs early waits for the scheduled time', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    await seedConnection(deps, alice.user.id, 'twitter');
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['twitter'], scheduled_at: '2026-01-01T00:10:00Z' },
        'scheduled',
      ),
    );
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({
      kind: 'retry',
      delayMs: 600_000,
      reason: 'scheduled for later',
      spendsAttempt: false,
    });
    deps.clock.advance(600_000 - 40); // within tolerance
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(await statusOf(deps, post.id)).toBe('published');
  });

  it('a job started during shutdown hands back at once', async () => {
    const { deps, post } = await setup(['tiktok']);
    const controller = new AbortController();
    controller.abort();
    expect(await processPublishJob(deps, post.id, jobCtx(1, 5, controller.signal))).toMatchObject({
      kind: 'retry',
      delayMs: 0,
    });
    expect(await statusOf(deps, post.id)).toBe('queued');
  });

  it('shutdown while publishing: the target is released without an error', async () => {
    const { deps, post } = await setup(['tiktok']);
    const controller = new AbortController();
    deps.platforms.publisher('tiktok').script(async (request) => {
      controller.abort();
      expect(request.signal.aborted).toBe(true);
      return failedOutcome('aborted', 'aborted', true);
    });
    const result = await processPublishJob(deps, post.id, jobCtx(1, 5, controller.signal));
    expect(result.kind).toBe('retry');
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'pending',
      errorCode: null,
    });
  });

  it('runs the claimed targets concurrently', async () => {
    const { deps, post } = await setup(['tiktok', 'youtube']);
    let release = () => {};
    const both = new Promise<void>((resolve) => {
      let waiting = 0;
      release = () => {
        waiting++;
        if (waiting === 2) resolve();
      };
    });
    const waitForBoth = async () => {
      release();
      await both;
      return published('x');
    };
    deps.platforms.publisher('tiktok').script(waitForBoth);
    deps.platforms.publisher('youtube').script(waitForBoth);
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
  });
});

describe('processPublishJob: leases', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('renews the lease while the publisher runs', async () => {
    const { deps, post } = await setup(['tiktok'], { targetLeaseMs: 30 });
    const renew = vi.spyOn(deps.repos.posts, 'renewLease');
    deps.platforms.publisher('tiktok').script(async () => {
      await sleep(80);
      return published('slow');
    });
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(renew.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('a lost lease aborts the publisher and its failure is not recorded', async () => {
    const { deps, post } = await setup(['tiktok'], { targetLeaseMs: 30 });
    const target = post.targets[0];
    if (!target) throw new Error('no target');
    deps.platforms.publisher('tiktok').script(async (request) => {
      // Another worker completes the target meanwhile: renewal reports the lease gone.
      const row = deps.store.tables.targets.get(target.id);
      if (row) Object.assign(row, { status: 'published', platformPostId: 'other-worker' });
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      return failedOutcome('aborted', String(request.signal.reason), true);
    });
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'published',
      platformPostId: 'other-worker',
    });
    expect(deps.logger.at('warn').some((e) => /no longer held/.test(e.msg ?? ''))).toBe(true);
  });

  it('a renewal that throws is logged and publishing goes on', async () => {
    const { deps, post } = await setup(['tiktok'], { targetLeaseMs: 30 });
    vi.spyOn(deps.repos.posts, 'renewLease').mockRejectedValue(new Error('db blip'));
    deps.platforms.publisher('tiktok').script(async () => {
      await sleep(50);
      return published('ok');
    });
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });
    expect(deps.logger.at('warn').some((e) => e.msg === 'lease renewal failed')).toBe(true);
  });

  it('saveProgress stores the state and extends the lease', async () => {
    const { deps, post } = await setup(['tiktok'], { targetLeaseMs: 60_000 });
    deps.platforms.publisher('tiktok').script(async (request) => {
      deps.clock.advance(30_000);
      await request.saveProgress({ containerId: 'c1' });
      const row = deps.store.tables.targets.get(request.target.id);
      expect(row?.leaseExpiresAt).toEqual(new Date(deps.clock.now().getTime() + 60_000));
      return published('p');
    });
    await processPublishJob(deps, post.id, jobCtx());
    expect((await targetsOf(deps, post.id))[0]?.resumeState).toEqual({ containerId: 'c1' });
  });
});

describe('processPublishJob: platform rate limits', () => {
  const throttledFor = (deps: TestDeps, ms: number) => ({
    kind: 'throttled' as const,
    code: 'rate_limit_exceeded',
    message: 'Too many requests',
    retryAt: new Date(deps.clock.now().getTime() + ms),
  });

  it('a throttled target waits until the named time without spending an attempt, even on the last one', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.platforms.publisher('tiktok').script(throttledFor(deps, 60_000));
    expect(await processPublishJob(deps, post.id, jobCtx(5, 5))).toEqual({
      kind: 'retry',
      delayMs: 60_000,
      reason: expect.stringContaining('rate-limited'),
      spendsAttempt: false,
    });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'pending',
      errorCode: 'rate_limit_exceeded',
      errorMessage: expect.stringContaining('waiting until'),
    });
    deps.platforms.publisher('tiktok').script(published('p1'));
    expect(await processPublishJob(deps, post.id, jobCtx(5, 5))).toEqual({ kind: 'done' });
    expect(await statusOf(deps, post.id)).toBe('published');
  });

  it('with a transient failure beside it, the retry spends an attempt and still waits long enough', async () => {
    const { deps, post } = await setup(['tiktok', 'youtube']);
    deps.platforms.publisher('tiktok').script(throttledFor(deps, 90_000));
    deps.platforms.publisher('youtube').script(failedOutcome('backendError', 'later', true));
    const result = await processPublishJob(deps, post.id, jobCtx(1));
    expect(result).toMatchObject({ kind: 'retry', delayMs: 90_000 });
    expect(result.kind === 'retry' && result.spendsAttempt).toBeUndefined();
  });

  it('past the wait budget a rate limit counts as a transient failure', async () => {
    const { deps, post } = await setup(['tiktok'], { publishMaxWaits: 3 });
    deps.platforms.publisher('tiktok').script(throttledFor(deps, 1_000));
    const result = await processPublishJob(deps, post.id, { ...jobCtx(5, 5), waits: 3 });
    expect(result).toEqual({ kind: 'done' });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'failed',
      errorCode: 'rate_limit_exceeded',
      errorMessage: expect.stringContaining('rate limited 3 times'),
      retryable: true,
    });
  });

  it('a wait longer than the service allows fails the target, saying until when the platform asked', async () => {
    const { deps, post } = await setup(['tiktok'], { publishMaxWaitMs: 60_000 });
    deps.platforms.publisher('tiktok').script(throttledFor(deps, 120_000));
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'pending',
      errorMessage: expect.stringContaining('longer than this service waits'),
    });
  });
});

describe('processPublishJob: publish intents', () => {
  it('an intent left by a run that stopped mid-call comes back to the resume, apart from the own state', async () => {
    const { deps, post } = await setup(['tiktok']);
    const seen: Array<[string, unknown, unknown]> = [];
    deps.platforms.publisher('tiktok').script(
      async (request: PublishRequest) => {
        await request.saveProgress({ creator: 'alice' });
        await request.recordIntent('init');
        throw new Error('worker killed mid-request');
      },
      async (request, mode) => {
        seen.push([mode, request.intent?.step, request.target.resumeState]);
        return failedOutcome('outcome_unknown', 'check the account', false);
      },
    );
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    await processPublishJob(deps, post.id, jobCtx(2));
    expect(seen).toEqual([['resume', 'init', { creator: 'alice' }]]);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'failed',
      errorCode: 'outcome_unknown',
      retryable: false,
    });
  });

  it('a platform answer outlives a short storage outage: saveProgress tries again until stored', async () => {
    const { deps, post } = await setup(['tiktok']);
    deps.store.failNext('posts.saveResumeState');
    const run = async (request: PublishRequest) => {
      await request.recordIntent('init');
      deps.store.failNext('posts.saveResumeState');
      deps.store.failNext('posts.saveResumeState');
      await request.saveProgress({ publishId: 'p-1' });
      return published('p-1');
    };
    deps.platforms.publisher('tiktok').script(run, run);
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    // The intent's own write failing sends nothing; the next run records it, and the answer is
    // stored through two more failures.
    expect(await processPublishJob(deps, post.id, jobCtx(2))).toEqual({ kind: 'done' });
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({
      status: 'published',
      platformPostId: 'p-1',
    });
    expect(
      deps.logger
        .at('warn')
        .filter((e) => e.msg === 'could not store the platform answer yet; trying again'),
    ).toHaveLength(2);
  });

  it('an intent whose write committed but whose answer was lost is taken back: the next run knows nothing was sent', async () => {
    const { deps, post } = await setup(['tiktok']);
    const seen: Array<[string, unknown, unknown]> = [];
    let sent = 0;
    const run = async (request: PublishRequest, mode: string) => {
      seen.push([mode, request.intent?.step ?? null, request.target.resumeState]);
      await request.saveProgress({ creator: 'alice' });
      await request.recordIntent('init');
      sent++;
      return published('p-1');
    };
    deps.platforms.publisher('tiktok').script(run, run);
    // The first save (the creator) is fine; the intent's write commits and then throws.
    const original = deps.repos.posts.saveResumeState;
    let calls = 0;
    deps.repos.posts.saveResumeState = async (...args) => {
      calls++;
      if (calls === 2) deps.store.loseNextAnswer('posts.saveResumeState');
      return original(...args);
    };
    expect((await processPublishJob(deps, post.id, jobCtx(1))).kind).toBe('retry');
    expect(sent).toBe(0);
    expect((await targetsOf(deps, post.id))[0]?.resumeState).toEqual({ creator: 'alice' });
    expect(await processPublishJob(deps, post.id, jobCtx(2))).toEqual({ kind: 'done' });
    expect(seen).toEqual([
      ['publish', null, null],
      ['resume', null, { creator: 'alice' }],
    ]);
    expect(sent).toBe(1);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({ status: 'published' });
  });

  it('an outage of the database inside the run is rethrown: no attempt spent, nothing sent', async () => {
    const { deps, post } = await setup(['tiktok']);
    const down = new DependencyUnavailableError('database', new Error('connect ECONNREFUSED'));
    const seen: Array<[string, unknown]> = [];
    let sent = 0;
    const run = async (request: PublishRequest, mode: string) => {
      seen.push([mode, request.intent?.step ?? null]);
      await request.recordIntent('init');
      sent++;
      return published('p-1');
    };
    deps.platforms.publisher('tiktok').script(run, run);
    deps.store.failNext('posts.saveResumeState', down);
    await expect(processPublishJob(deps, post.id, jobCtx(1))).rejects.toBe(down);
    expect(sent).toBe(0);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({ errorCode: null });
    // The worker waits and runs the same attempt again: the target is claimed once more.
    expect(await processPublishJob(deps, post.id, { ...jobCtx(1), waits: 1 })).toEqual({
      kind: 'done',
    });
    expect(seen.map(([, intent]) => intent)).toEqual([null, null]);
    expect(sent).toBe(1);
    expect((await targetsOf(deps, post.id))[0]).toMatchObject({ status: 'published' });
  });

  it('saveProgress (the answer recorded) and clearIntent (a refusal) end the intent', async () => {
    const { deps, post } = await setup(['tiktok', 'youtube']);
    deps.platforms.publisher('tiktok').script(async (request: PublishRequest) => {
      await request.recordIntent('init');
      await request.saveProgress({ publishId: 'p-1' });
      return failedOutcome('internal_error', 'poll failed', true);
    });
    deps.platforms.publisher('youtube').script(async (request: PublishRequest) => {
      await request.recordIntent('insert');
      await request.clearIntent();
      return failedOutcome('backendError', 'refused', true);
    });
    await processPublishJob(deps, post.id, jobCtx(1));
    const states = (await targetsOf(deps, post.id)).map((target) => target.resumeState);
    expect(states).toEqual([{ publishId: 'p-1' }, {}]);
  });
});
