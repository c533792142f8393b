/**
 * The scenario list of issue 5, run against both running modes (production: PostgreSQL +
 * BullMQ; embedded: PGlite + in-process queue). Each test file builds a `System` and calls
 * `defineScenarios`.
 */
import {
  type CoreDeps,
  cancelPost,
  createPost,
  type PostWithTargets,
  type Repositories,
} from '@social-publisher/domain';
import { expect, it } from 'vitest';
import type { FakeTiktok } from '../../testkit/src/index.ts';
import {
  loadPost,
  type Seeded,
  sleep,
  type TestLogger,
  waitFor,
  waitForStatus,
} from './harness.ts';

export interface System {
  /** Deps of the API side (where posts are created and cancelled). Changes on restart in embedded mode. */
  api(): CoreDeps;
  repos(): Repositories;
  /** Runs one reconcile pass on the worker now. */
  reconcileNow(): Promise<void>;
  /** Stops the worker (embedded: the whole process runtime) and starts a new one on the same storage. */
  restart(): Promise<void>;
  /** How far ahead the restart scenario schedules its post: longer than a restart takes. */
  restartLeadMs: number;
  /** API deps whose queue cannot be reached (enqueue fails); close() after use. */
  unreachableApi(): Promise<{ deps: CoreDeps; close(): Promise<void> }>;
  tiktok: FakeTiktok;
  seeded: Seeded;
  /** The logger every runtime of the file writes to. */
  log: TestLogger;
}

export const VIDEO_URL = 'https://media.example.com/clips/launch.mp4';

/** TikTok init requests of the post whose content is `content` (the fake records the title). */
export function tiktokInits(tiktok: FakeTiktok, content: string) {
  return tiktok.publishes.filter(
    (publish) => (publish.body.post_info as { title?: unknown } | undefined)?.title === content,
  );
}

async function create(
  system: System,
  content: string,
  options: { scheduledAt?: Date; tiktok?: boolean; deps?: CoreDeps } = {},
): Promise<PostWithTargets> {
  const input = {
    content,
    platforms: options.tiktok ? ['twitter', 'tiktok'] : ['twitter', 'linkedin'],
    ...(options.tiktok ? { media_urls: [VIDEO_URL] } : {}),
    ...(options.scheduledAt ? { scheduled_at: options.scheduledAt.toISOString() } : {}),
  };
  const result = await createPost(
    options.deps ?? system.api(),
    system.seeded.ctx,
    input,
    options.scheduledAt ? 'scheduled' : 'now',
  );
  if (!result.ok) throw new Error(`createPost: ${JSON.stringify(result.error)}`);
  return result.value;
}

function expectAllPublished(post: PostWithTargets): void {
  expect(post.status).toBe('published');
  for (const target of post.targets) {
    expect(target.status).toBe('published');
    expect(target.platformPostId).toBeTruthy();
    expect(target.publishedAt).toBeInstanceOf(Date);
  }
}

/**
 * The first four scenarios are independent (each its own post) and run concurrently; the
 * restart scenario runs after them, alone, since it stops the worker.
 */
export function defineScenarios(get: () => System): void {
  it.concurrent('publishes an immediate post (sandbox twitter + TikTok fake)', async () => {
    const system = get();
    const content = `immediate ${Date.now()}`;
    const post = await create(system, content, { tiktok: true });
    expect(post.status).toBe('queued');

    const done = await waitForStatus(system.repos(), post.id);
    expectAllPublished(done);
    const tiktokTarget = done.targets.find((target) => target.platform === 'tiktok');
    const inits = tiktokInits(system.tiktok, content);
    expect(inits).toHaveLength(1);
    expect(tiktokTarget?.platformPostId).toBe(inits[0]?.postId);
  });

  it.concurrent('starts a post scheduled 2 s ahead not before its time, and within 1 s after it', async () => {
    const system = get();
    const scheduledAt = new Date(Date.now() + 2_000);
    const post = await create(system, `scheduled ${Date.now()}`, { scheduledAt });
    expect(post.status).toBe('scheduled');

    // Watch the targets: any that left `pending` in an observation finished before the
    // scheduled time would be an early start.
    const early: string[] = [];
    const done = await waitFor(
      'the scheduled post to be published',
      async () => {
        const current = await loadPost(system.repos(), post.id);
        const observedAt = Date.now();
        if (observedAt < scheduledAt.getTime()) {
          for (const target of current.targets) {
            if (target.status !== 'pending') early.push(`${target.platform}: ${target.status}`);
          }
          if (current.status !== 'scheduled') early.push(`post: ${current.status}`);
        }
        return current.status === 'published' ? current : undefined;
      },
      5_000,
      20,
    );
    expect(early).toEqual([]);
    expectAllPublished(done);
    for (const target of done.targets) {
      const startedBy = target.publishedAt?.getTime() ?? Number.NaN;
      expect(startedBy).toBeGreaterThanOrEqual(scheduledAt.getTime());
      expect(startedBy - scheduledAt.getTime()).toBeLessThanOrEqual(1_000);
      expect(target.updatedAt.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    }
  });

  it.concurrent('never publishes a cancelled scheduled post', async () => {
    const system = get();
    const content = `cancelled ${Date.now()}`;
    const scheduledAt = new Date(Date.now() + 1_000);
    const post = await create(system, content, { scheduledAt, tiktok: true });

    const cancelled = await cancelPost(system.api(), system.seeded.actor, post.id);
    expect(cancelled.ok).toBe(true);

    // Past its time, with reconcile passes: nothing brings it back.
    await sleep(scheduledAt.getTime() - Date.now() + 800);
    await system.reconcileNow();
    await sleep(300);
    const after = await loadPost(system.repos(), post.id);
    expect(after.status).toBe('cancelled');
    expect(after.targets.map((target) => target.status)).toEqual(['cancelled', 'cancelled']);
    expect(after.targets.every((target) => target.platformPostId === null)).toBe(true);
    expect(tiktokInits(system.tiktok, content)).toHaveLength(0);
  });

  it.concurrent('accepts a post while the queue is unreachable; the reconciler publishes it', async () => {
    const system = get();
    const unreachable = await system.unreachableApi();
    let post: PostWithTargets;
    try {
      const started = Date.now();
      post = await create(system, `unreachable ${Date.now()}`, { deps: unreachable.deps });
      expect(post.status).toBe('queued'); // accepted (the HTTP layer answers 201)
      expect(Date.now() - started).toBeLessThan(5_000); // the producer fails fast
      const warnings = system.log.lines.filter(
        (line) => line.msg === 'enqueue of publish job failed' && line.postId === post.id,
      );
      expect(warnings).toHaveLength(1);
    } finally {
      await unreachable.close();
    }
    const done = await waitForStatus(system.repos(), post.id, 'published', 10_000);
    expectAllPublished(done);
  });

  it('publishes a post scheduled before a restart after the restart', async () => {
    const system = get();
    const scheduledAt = new Date(Date.now() + system.restartLeadMs);
    const post = await create(system, `restart ${Date.now()}`, { scheduledAt });
    await system.restart();
    const mid = await loadPost(system.repos(), post.id);
    expect(Date.now()).toBeLessThan(scheduledAt.getTime()); // the restart happened before its time
    expect(mid.status).toBe('scheduled');

    const done = await waitForStatus(system.repos(), post.id, 'published', 8_000);
    expectAllPublished(done);
    for (const target of done.targets) {
      const publishedAt = target.publishedAt?.getTime() ?? Number.NaN;
      expect(publishedAt).toBeGreaterThanOrEqual(scheduledAt.getTime());
      expect(publishedAt - scheduledAt.getTime()).toBeLessThanOrEqual(1_000);
    }
  });
}
