import { describe, expect, it } from 'vitest';
import {
  cancelPost,
  createPost,
  createWebhook,
  getPost,
  reconcile,
  signPayload,
} from '../src/index.ts';
import {
  createTestDeps,
  FakeQueue,
  failedOutcome,
  seedConnection,
  seedUser,
} from '../src/testing/index.ts';
import { unwrap } from './support.ts';

describe('the whole service without I/O', () => {
  it('post -> publish job (with a transient failure) -> webhook delivery (with a retry)', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps, 'alice@example.com');
    const tiktok = await seedConnection(deps, alice.user.id, 'tiktok');
    const instagram = await seedConnection(deps, alice.user.id, 'instagram');
    const hook = unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://hooks.example.com/sp',
        events: ['post.partial'],
      }),
    );
    deps.platforms
      .publisher('tiktok')
      .script(failedOutcome('rate_limit_exceeded', 'slow down', true));
    deps.platforms
      .publisher('instagram')
      .script(failedOutcome('2207010', 'caption too long', false));
    deps.webhookSender.respond({ statusCode: 503 });

    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'launch',
          social_account_ids: [tiktok.id, instagram.id],
          media_urls: ['https://cdn.example.com/v.mp4'],
        },
        'now',
      ),
    );
    await deps.runJobs();

    const done = unwrap(await getPost(deps, alice.actor, post.id));
    expect(done.status).toBe('partial');
    expect(done.targets.map((t) => [t.platform, t.status, t.errorCode])).toEqual([
      ['tiktok', 'published', null],
      ['instagram', 'failed', '2207010'],
    ]);
    expect(deps.platforms.publisher('tiktok').calls).toHaveLength(2);
    expect(deps.platforms.publisher('instagram').calls).toHaveLength(1);

    const requests = deps.webhookSender.requests;
    expect(requests).toHaveLength(2);
    expect(requests[0]?.body).toBe(requests[1]?.body);
    expect(JSON.parse(requests[1]?.body ?? '{}')).toMatchObject({
      event: 'post.partial',
      account_id: alice.user.id,
      post_id: post.id,
      data: { published: 1, failed: 1, total: 2 },
    });
    expect(requests[1]?.headers['X-Social-Publisher-Signature']).toBe(
      signPayload(hook.secret, requests[1]?.body ?? ''),
    );
    const [delivery] = [...deps.store.tables.deliveries.values()];
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(deps.queue.jobs.size).toBe(0);
  });

  it('a scheduled post survives a lost queue through the reconciler', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    await seedConnection(deps, alice.user.id, 'linkedin');
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['linkedin'], scheduled_at: '2026-01-01T00:05:00Z' },
        'scheduled',
      ),
    );
    // The process restarts: a fresh, empty queue.
    const fresh = new FakeQueue(deps.clock);
    const restarted = { ...deps, queue: fresh };
    deps.clock.advance(4 * 60_000 + 30_000);
    expect((await reconcile(restarted)).postsEnqueued).toBe(1);
    expect(fresh.list('publish')[0]?.runAt).toEqual(post.scheduledAt);
    await fresh.drain(deps.handlers);
    expect(unwrap(await getPost(deps, alice.actor, post.id)).status).toBe('published');
  });

  it('a cancelled post is never published', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    await seedConnection(deps, alice.user.id, 'facebook');
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['facebook'] }, 'now'));
    unwrap(await cancelPost(deps, alice.actor, post.id));
    await deps.queue.enqueuePublish(post.id, null); // e.g. the reconciler raced the cancel
    await deps.runJobs();
    expect(deps.platforms.allCalls()).toEqual([]);
    expect(unwrap(await getPost(deps, alice.actor, post.id)).status).toBe('cancelled');
  });
});
