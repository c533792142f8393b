// What the use cases report to the Metrics port: posts created, publish starts with their
// lateness, targets ended by platform and code, webhook attempts by outcome.
import { describe, expect, it } from 'vitest';
import {
  createPost,
  createWebhook,
  deliverWebhook,
  type Metrics,
  processPublishJob,
} from '../src/index.ts';
import {
  createTestDeps,
  failedOutcome,
  published,
  seedConnection,
  seedUser,
} from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

function recorder() {
  const calls: unknown[][] = [];
  const metrics: Metrics = {
    postCreated: (post) => calls.push(['postCreated', post]),
    publishStarted: (latenessMs) => calls.push(['publishStarted', latenessMs]),
    targetFinished: (...args) => calls.push(['targetFinished', ...args]),
    webhookAttempt: (...args) => calls.push(['webhookAttempt', ...args]),
    metricsRead: (...args) => calls.push(['metricsRead', ...args]),
    metricsReadLate: (latenessMs) => calls.push(['metricsReadLate', latenessMs]),
  };
  return { calls, metrics };
}

describe('metrics reported by the use cases', () => {
  it('one post with a published and a failed target, its lateness, and its webhook', async () => {
    const { calls, metrics } = recorder();
    const deps = createTestDeps({ settings: { deliveryRetryScheduleMs: [5_000] } });
    deps.metrics = metrics;
    const alice = await seedUser(deps);
    const tiktok = await seedConnection(deps, alice.user.id, 'tiktok');
    const youtube = await seedConnection(deps, alice.user.id, 'youtube');
    unwrap(
      await createWebhook(deps, alice.ctx, {
        url: 'https://hooks.example.com/in',
        events: ['post.partial'],
      }),
    );
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'hello',
          social_account_ids: [tiktok.id, youtube.id],
          media_urls: ['https://cdn.example.com/a.mp4'],
        },
        'now',
      ),
    );
    deps.platforms.publisher('tiktok').script(published('t-1'));
    deps.platforms.publisher('youtube').script(failedOutcome('forbidden', 'no', false));
    deps.clock.advance(1_500);
    expect(await processPublishJob(deps, post.id, jobCtx())).toEqual({ kind: 'done' });

    const [delivery] = await deps.repos.deliveries.findDue(deps.clock.now(), 10);
    if (!delivery) throw new Error('no delivery');
    deps.webhookSender.respond({ statusCode: 500 }, { statusCode: 503 });
    await deliverWebhook(deps, delivery.id, jobCtx());
    deps.clock.advance(6_000);
    await deliverWebhook(deps, delivery.id, jobCtx());

    const finished = calls.filter(([name]) => name === 'targetFinished');
    expect(finished).toHaveLength(2);
    expect(finished).toEqual(
      expect.arrayContaining([
        ['targetFinished', 'tiktok', 'published', null],
        ['targetFinished', 'youtube', 'failed', 'forbidden'],
      ]),
    );
    expect(calls.filter(([name]) => name !== 'targetFinished')).toEqual([
      ['postCreated', { scheduled: false, targets: 2 }],
      ['publishStarted', 1_500],
      ['webhookAttempt', 'retrying', 1],
      ['webhookAttempt', 'failed', 2],
    ]);
  });
});
