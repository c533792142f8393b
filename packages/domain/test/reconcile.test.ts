import { describe, expect, it } from 'vitest';
import { createPost, RECONCILE_GRACE_MS, reconcile } from '../src/index.ts';
import { createTestDeps, seedConnection, seedUser } from '../src/testing/index.ts';
import { storeDelivery, UNKNOWN_ID, unwrap } from './support.ts';

async function setup() {
  const deps = createTestDeps();
  const alice = await seedUser(deps);
  await seedConnection(deps, alice.user.id, 'twitter');
  return { deps, alice };
}

describe('reconcile', () => {
  it('re-enqueues due posts: scheduled ones at their time, others now; ignores far-future ones', async () => {
    const { deps, alice } = await setup();
    const now = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    const soon = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['twitter'], scheduled_at: '2026-01-01T00:00:30Z' },
        'scheduled',
      ),
    );
    unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['twitter'], scheduled_at: '2026-01-01T01:00:00Z' },
        'scheduled',
      ),
    );
    deps.queue.jobs.clear(); // the queue lost everything
    deps.queue.enqueued.length = 0;
    deps.clock.advance(RECONCILE_GRACE_MS);
    const report = await reconcile(deps);
    expect(report).toEqual({
      postsEnqueued: 2,
      leasesResumed: 0,
      deliveriesEnqueued: 0,
      unpublishesEnqueued: 0,
      seriesOccurrencesCreated: 0,
      enqueueFailures: 0,
    });
    expect(deps.queue.enqueued).toEqual([
      { kind: 'publish', id: now.id, runAt: null },
      { kind: 'publish', id: soon.id, runAt: soon.scheduledAt },
    ]);
  });

  it("leaves a post just written to its request's own enqueue, then adds it after the grace", async () => {
    // The request that wrote the post enqueues it with its id and trace; a job the pass added
    // first would be the one that runs, without them.
    const { deps, alice } = await setup();
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    deps.queue.jobs.clear(); // as if that enqueue were still on its way, or had failed
    deps.queue.enqueued.length = 0;
    deps.clock.advance(RECONCILE_GRACE_MS - 1);
    expect((await reconcile(deps)).postsEnqueued).toBe(0);
    deps.clock.advance(1);
    expect((await reconcile(deps)).postsEnqueued).toBe(1);
    expect(deps.queue.enqueued).toEqual([{ kind: 'publish', id: post.id, runAt: null }]);
  });

  it('resumes posts with expired leases once per post', async () => {
    const { deps, alice } = await setup();
    await seedConnection(deps, alice.user.id, 'linkedin');
    const post = unwrap(
      await createPost(deps, alice.ctx, { platforms: ['twitter', 'linkedin'] }, 'now'),
    );
    const now = deps.clock.now();
    const lease = new Date(now.getTime() + 1000);
    await deps.repos.posts.startPublish(post.id, { now, startBefore: now, leaseExpiresAt: lease });
    deps.clock.advance(5_000);
    deps.queue.enqueued.length = 0;
    const report = await reconcile(deps);
    expect(report.leasesResumed).toBe(1);
    expect(deps.queue.enqueued.filter((e) => e.id === post.id)).toHaveLength(2);
  });

  it('re-enqueues due pending deliveries', async () => {
    const { deps, alice } = await setup();
    const owner = { webhookId: UNKNOWN_ID, accountId: alice.user.id };
    const retry = { attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' };
    const base = await storeDelivery(deps, {
      ...owner,
      ...retry,
      nextAttemptAt: new Date(deps.clock.now().getTime() - 1),
    });
    await storeDelivery(deps, {
      ...owner,
      ...retry,
      nextAttemptAt: new Date(deps.clock.now().getTime() + 60_000),
    });
    await storeDelivery(deps, { ...owner, ...retry, status: 'delivered' });
    expect((await reconcile(deps)).deliveriesEnqueued).toBe(1);
    expect(deps.queue.enqueued).toEqual([{ kind: 'deliver', id: base.id, runAt: null }]);
  });

  it('leaves a delivery not yet attempted to the job that stored it, then adds it after the grace', async () => {
    const { deps, alice } = await setup();
    const fresh = await storeDelivery(deps, { webhookId: UNKNOWN_ID, accountId: alice.user.id });
    deps.clock.advance(RECONCILE_GRACE_MS - 1);
    expect((await reconcile(deps)).deliveriesEnqueued).toBe(0);
    expect((await reconcile(deps, { graceMs: 0 })).deliveriesEnqueued).toBe(1);
    deps.queue.enqueued.length = 0;
    deps.clock.advance(1);
    expect((await reconcile(deps)).deliveriesEnqueued).toBe(1);
    expect(deps.queue.enqueued).toEqual([{ kind: 'deliver', id: fresh.id, runAt: null }]);
  });

  it('counts and logs enqueue failures without throwing', async () => {
    const { deps, alice } = await setup();
    unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    deps.queue.failEnqueues = 1;
    deps.clock.advance(RECONCILE_GRACE_MS);
    const report = await reconcile(deps);
    expect(report).toMatchObject({ postsEnqueued: 1, enqueueFailures: 1 });
    expect(deps.logger.at('warn')).toHaveLength(1);
  });

  it('an empty pass enqueues nothing', async () => {
    const deps = createTestDeps();
    expect(await reconcile(deps)).toEqual({
      postsEnqueued: 0,
      leasesResumed: 0,
      deliveriesEnqueued: 0,
      unpublishesEnqueued: 0,
      seriesOccurrencesCreated: 0,
      enqueueFailures: 0,
    });
  });
});
