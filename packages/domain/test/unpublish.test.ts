/** Taking published posts down: the ask, the unpublish job, its retries and its event. */
import { describe, expect, it } from 'vitest';
import {
  createMemoryPacer,
  createPost,
  createWebhook,
  type PlatformRemover,
  processPublishJob,
  processUnpublishJob,
  type RemoveOutcome,
  type RemoveRequest,
  reconcile,
  unpublishPost,
} from '../src/index.ts';
import { createTestDeps, seedConnection, seedUser, type TestDeps } from '../src/testing/index.ts';
import { errorOf, jobCtx, UNKNOWN_ID, unwrap } from './support.ts';

/** A remover answering scripted outcomes in turn (then `removed`), recording every call. */
class ScriptedRemover implements PlatformRemover {
  readonly calls: RemoveRequest[] = [];
  readonly #script: Array<RemoveOutcome | Error> = [];
  script(...steps: Array<RemoveOutcome | Error>): this {
    this.#script.push(...steps);
    return this;
  }
  async remove(request: RemoveRequest): Promise<RemoveOutcome> {
    this.calls.push(request);
    const step = this.#script.shift() ?? { kind: 'removed' };
    if (step instanceof Error) throw step;
    return step;
  }
}

const VIDEO = 'https://cdn.example.com/clip.mp4';

async function setup(options: { sandboxTwitter?: boolean } = {}) {
  const deps = createTestDeps();
  const alice = await seedUser(deps, 'alice@example.com');
  const twitter = await seedConnection(deps, alice.user.id, 'twitter', {
    sandbox: options.sandboxTwitter ?? false,
  });
  const youtube = await seedConnection(deps, alice.user.id, 'youtube');
  const remover = new ScriptedRemover();
  deps.platforms.setRemover('twitter', remover);
  await createWebhook(deps, alice.ctx, {
    url: 'https://hooks.example.com/unpublish',
    events: ['post.unpublished', 'social_account.expired'],
  });
  const post = unwrap(
    await createPost(
      deps,
      alice.ctx,
      { content: 'hello', social_account_ids: [twitter.id, youtube.id], media_urls: [VIDEO] },
      'now',
    ),
  );
  deps.platforms.publisher('twitter').script({
    kind: 'published',
    platformPostId: 'tweet-1',
    platformUrl: 'https://x.test/tweet-1',
    threadPostIds: ['tweet-2', 'tweet-3'],
    firstCommentId: 'tweet-4',
  });
  await processPublishJob(deps, post.id, jobCtx());
  const published = await deps.repos.posts.findById(post.id);
  if (!published) throw new Error('no post');
  deps.queue.jobs.clear();
  const targetOf = (platform: string) => {
    const target = published.targets.find((t) => t.platform === platform);
    if (!target) throw new Error(`no ${platform} target`);
    return target;
  };
  return { deps, alice, twitter, youtube, remover, post: published, targetOf };
}

const unpublishedEvents = (deps: TestDeps) =>
  [...deps.store.tables.deliveries.values()]
    .filter((delivery) => delivery.event === 'post.unpublished')
    .map((delivery) => JSON.parse(delivery.payload).data);

const statuses = async (deps: TestDeps, postId: string) =>
  (await deps.repos.posts.findById(postId))?.targets.map((t) => [
    t.platform,
    t.status,
    t.unpublish,
  ]);

describe('unpublishPost: the ask', () => {
  it('marks the deletable targets removing, the others unsupported, and enqueues one job', async () => {
    const { deps, alice, post } = await setup();
    const answer = unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    expect(answer.targets.map((t) => [t.platform, t.status, t.unpublish])).toEqual([
      ['twitter', 'removing', null],
      ['youtube', 'published', 'unsupported'],
    ]);
    expect(deps.queue.list('unpublish').map((job) => job.id)).toEqual([post.id]);
    expect(unpublishedEvents(deps)).toEqual([]);
  });

  it('refuses what cannot be taken down, naming why', async () => {
    const { deps, alice, post } = await setup();
    const unknown = errorOf(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [UNKNOWN_ID] }),
    );
    expect(unknown).toMatchObject({ code: 'validation_failed' });
    expect(unknown.message).toContain(UNKNOWN_ID);
    const bob = await seedUser(deps, 'bob@example.com');
    expect(errorOf(await unpublishPost(deps, bob.actor, post.id, {})).code).toBe('not_found');
    const scheduled = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'later',
          social_account_ids: [post.targets[0]?.socialAccountId ?? ''],
          scheduled_at: '2099-01-01T00:00:00Z',
        },
        'scheduled',
      ),
    );
    const notPublished = errorOf(await unpublishPost(deps, alice.actor, scheduled.id, {}));
    expect(notPublished.code).toBe('post_not_published');
    const pending = scheduled.targets[0]?.id ?? '';
    const named = errorOf(
      await unpublishPost(deps, alice.actor, scheduled.id, { targetIds: [pending] }),
    );
    expect(named).toMatchObject({ code: 'validation_failed' });
    expect(named.message).toContain('is not published (it is pending)');
  });

  it('asked again while removing: no second job, one event counting the targets once', async () => {
    const { deps, alice, post, targetOf } = await setup();
    const twitterId = targetOf('twitter').id;
    unwrap(await unpublishPost(deps, alice.actor, post.id, { targetIds: [twitterId] }));
    unwrap(await unpublishPost(deps, alice.actor, post.id, { targetIds: [twitterId] }));
    unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    expect(deps.queue.list('unpublish')).toHaveLength(1);
    await deps.runJobs();
    expect(unpublishedEvents(deps)).toEqual([{ removed: 1, failed: 0, unsupported: 1, total: 2 }]);
  });

  it('only unsupported targets: the event is sent at once and no job runs', async () => {
    const { deps, alice, post, targetOf } = await setup();
    const youtubeId = targetOf('youtube').id;
    unwrap(await unpublishPost(deps, alice.actor, post.id, { targetIds: [youtubeId] }));
    expect(deps.queue.list('unpublish')).toEqual([]);
    expect(unpublishedEvents(deps)).toEqual([{ removed: 0, failed: 0, unsupported: 1, total: 1 }]);
    // Still visible later, and the target stays published.
    expect(await statuses(deps, post.id)).toContainEqual(['youtube', 'published', 'unsupported']);
  });
});

describe('processUnpublishJob', () => {
  it('deletes with the ids the publisher recorded, then sends post.unpublished', async () => {
    const { deps, alice, post, remover } = await setup();
    unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    await deps.runJobs();
    expect(remover.calls).toHaveLength(1);
    expect(remover.calls[0]).toMatchObject({
      platformPostId: 'tweet-1',
      threadPostIds: ['tweet-2', 'tweet-3'],
      firstCommentId: 'tweet-4',
      connection: { accessToken: 'token-twitter' },
    });
    expect(await statuses(deps, post.id)).toEqual([
      ['twitter', 'removed', null],
      ['youtube', 'published', 'unsupported'],
    ]);
    expect(unpublishedEvents(deps)).toEqual([{ removed: 1, failed: 0, unsupported: 1, total: 2 }]);
  });

  it('a refusal for good is remove_failed with the platform code; asking again retries it', async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    remover.script({ kind: 'failed', code: 'forbidden', message: 'not yours', retryable: false });
    const ids = [targetOf('twitter').id];
    unwrap(await unpublishPost(deps, alice.actor, post.id, { targetIds: ids }));
    await deps.runJobs();
    const failed = (await deps.repos.posts.findById(post.id))?.targets[0];
    expect(failed).toMatchObject({
      status: 'remove_failed',
      errorCode: 'forbidden',
      errorMessage: 'not yours',
    });
    expect(unpublishedEvents(deps)).toEqual([{ removed: 0, failed: 1, unsupported: 0, total: 1 }]);
    unwrap(await unpublishPost(deps, alice.actor, post.id, { targetIds: ids }));
    await deps.runJobs();
    expect((await deps.repos.posts.findById(post.id))?.targets[0]).toMatchObject({
      status: 'removed',
      errorCode: null,
    });
    expect(unpublishedEvents(deps)).toHaveLength(2);
  });

  it('retries transient failures with backoff, and the last attempt ends the target', async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    const flaky = { kind: 'failed', code: 'http_503', message: 'down', retryable: true } as const;
    remover.script(flaky, new Error('socket hang up'), flaky, flaky, flaky, flaky);
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    await deps.runJobs();
    const target = (await deps.repos.posts.findById(post.id))?.targets[0];
    expect(remover.calls).toHaveLength(deps.queue.maxAttempts);
    expect(target).toMatchObject({
      status: 'remove_failed',
      errorCode: 'http_503',
      retryable: true,
    });
    expect(target?.errorMessage).toContain('gave up after 5 attempts');
    expect(deps.queue.dropped).toEqual([]);
    expect(unpublishedEvents(deps)).toEqual([{ removed: 0, failed: 1, unsupported: 0, total: 1 }]);
  });

  it('waits out a throttle without spending an attempt', async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    const retryAt = new Date(deps.clock.now().getTime() + 60_000);
    remover.script({
      kind: 'throttled',
      code: 'rate_limit_exceeded',
      message: 'slow down',
      retryAt,
    });
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    await deps.runJobs();
    const runs = deps.queue.results.filter((r) => r.kind === 'unpublish');
    expect(runs.map((r) => r.attempt)).toEqual([1, 1]);
    expect(runs[0]?.result).toMatchObject({ kind: 'retry', spendsAttempt: false });
    expect(remover.calls[1]).toBeDefined();
    expect(deps.clock.now().getTime()).toBeGreaterThanOrEqual(retryAt.getTime());
    expect(await statuses(deps, post.id)).toContainEqual(['twitter', 'removed', null]);
  });

  it('a refused token expires the connection and fails the target', async () => {
    const { deps, alice, post, remover, twitter, targetOf } = await setup();
    remover.script({ kind: 'connection_expired', message: 'token revoked' });
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    await deps.runJobs();
    expect((await deps.repos.posts.findById(post.id))?.targets[0]).toMatchObject({
      status: 'remove_failed',
      errorCode: 'connection_expired',
    });
    expect((await deps.repos.socialAccounts.findById(twitter.id))?.status).toBe('expired');
    const events = [...deps.store.tables.deliveries.values()].map((d) => d.event);
    expect(events).toContain('social_account.expired');
  });

  it('a sandbox target is removed at once, without calling its platform', async () => {
    const { deps, alice, post, remover } = await setup({ sandboxTwitter: true });
    unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    await deps.runJobs();
    expect(remover.calls).toEqual([]);
    expect(await statuses(deps, post.id)).toContainEqual(['twitter', 'removed', null]);
  });

  it("a removed target's numbers are no longer read (its track ends gone); the others' are", async () => {
    const { deps, alice, post, targetOf } = await setup();
    const before = await deps.repos.metrics.listByPost(post.id);
    expect(before.map((track) => track.dueAt === null)).toEqual([false, false]);
    unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    await deps.runJobs();
    const tracks = await deps.repos.metrics.listByPost(post.id);
    const of = (id: string) => tracks.find((track) => track.targetId === id);
    expect(of(targetOf('twitter').id)).toMatchObject({ state: 'gone', dueAt: null });
    expect(of(targetOf('youtube').id)?.dueAt).not.toBeNull();
  });

  it('a crashed worker: its claim runs out and the reconciler resumes the target', async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    deps.queue.jobs.clear(); // the job is lost with the worker
    const now = deps.clock.now();
    const lease = new Date(now.getTime() + deps.settings.targetLeaseMs);
    const [claim] = await deps.repos.posts.claimRemovals(post.id, { now, leaseExpiresAt: lease });
    expect(claim?.takenOver).toBe(false);
    // While the claim holds, another run takes nothing.
    expect(await processUnpublishJob(deps, post.id, jobCtx())).toMatchObject({ kind: 'retry' });
    expect(remover.calls).toEqual([]);
    deps.clock.advance(deps.settings.targetLeaseMs + 1);
    expect((await reconcile(deps)).unpublishesEnqueued).toBe(1);
    await deps.runJobs();
    expect(remover.calls).toHaveLength(1);
    expect(await statuses(deps, post.id)).toContainEqual(['twitter', 'removed', null]);
    expect(unpublishedEvents(deps)).toEqual([{ removed: 1, failed: 0, unsupported: 0, total: 1 }]);
    expect((await reconcile(deps)).unpublishesEnqueued).toBe(0);
  });

  it('a refused enqueue is left to the reconciler', async () => {
    const { deps, alice, post } = await setup();
    deps.queue.failEnqueues = 1;
    unwrap(await unpublishPost(deps, alice.actor, post.id, {}));
    expect(deps.queue.list('unpublish')).toEqual([]);
    await reconcile(deps);
    await deps.runJobs();
    expect(await statuses(deps, post.id)).toContainEqual(['twitter', 'removed', null]);
    expect(unpublishedEvents(deps)).toHaveLength(1);
  });

  it('a shutdown hands the target back untouched; the next run removes it', async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    const stop = new AbortController();
    remover.remove = async (request) => {
      remover.calls.push(request);
      stop.abort();
      return { kind: 'failed', code: 'aborted', message: 'aborted', retryable: true };
    };
    await processUnpublishJob(deps, post.id, jobCtx(1, 5, stop.signal));
    const target = (await deps.repos.posts.findById(post.id))?.targets[0];
    expect(target).toMatchObject({ status: 'removing', leaseExpiresAt: null, errorCode: null });
  });

  it("deletes go through the connection's pacer: past the budget a target waits, no attempt spent", async () => {
    const { deps, alice, post, remover, targetOf } = await setup();
    deps.pacing = {
      pacer: createMemoryPacer(),
      limitOf: (platform) => (platform === 'twitter' ? { count: 1, windowMs: 60_000 } : null),
    };
    // The budget's one slot goes to a publish of the same connection first.
    const now = deps.clock.now();
    const key = `twitter:${targetOf('twitter').socialAccountId}`;
    await deps.pacing.pacer.take(key, { count: 1, windowMs: 60_000 }, 'another-target', now);
    unwrap(
      await unpublishPost(deps, alice.actor, post.id, { targetIds: [targetOf('twitter').id] }),
    );
    const result = await processUnpublishJob(deps, post.id, jobCtx(5, 5));
    expect(result).toMatchObject({ kind: 'retry', spendsAttempt: false });
    expect(remover.calls).toEqual([]);
    expect((await deps.repos.posts.findById(post.id))?.targets[0]).toMatchObject({
      status: 'removing',
      leaseExpiresAt: null,
      errorCode: 'rate_limited',
    });
  });
});
