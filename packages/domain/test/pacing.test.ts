import { describe, expect, it } from 'vitest';
import {
  type ConnectionPacer,
  createMemoryPacer,
  createPost,
  getSocialAccount,
  type Platform,
  processPublishJob,
} from '../src/index.ts';
import { createTestDeps, seedConnection, seedUser, type TestDeps } from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

const VIDEO = 'https://cdn.example.com/clip.mp4';
const TWO_PER_MINUTE = { count: 2, windowMs: 60_000 };
/** paceMarginMs of that limit. */
const MARGIN = 2_000;

async function setup(pacer: ConnectionPacer = createMemoryPacer()) {
  const deps = createTestDeps();
  deps.pacing = {
    pacer,
    limitOf: (platform) => (platform === 'tiktok' ? TWO_PER_MINUTE : null),
  };
  const alice = await seedUser(deps, 'alice@example.com');
  const hot = await seedConnection(deps, alice.user.id, 'tiktok');
  const other = await seedConnection(deps, alice.user.id, 'tiktok');
  const post = async (connectionId: string) =>
    unwrap(
      await createPost(
        deps,
        alice.ctx,
        { content: 'hello', social_account_ids: [connectionId], media_urls: [VIDEO] },
        'now',
      ),
    );
  return { deps, alice, hot, other, post };
}

const targetOf = async (deps: TestDeps, postId: string) =>
  (await deps.repos.posts.findById(postId))?.targets[0];
const calls = (deps: TestDeps, platform: Platform) =>
  deps.platforms.publisher(platform).calls.length;

describe('processPublishJob: pacing ahead of the platform limit', () => {
  it('past the budget a target waits for its own slot without calling the platform or spending an attempt; other connections go at once', async () => {
    const { deps, hot, other, post } = await setup();
    const posts = [];
    for (let i = 0; i < 4; i++) posts.push(await post(hot.id));
    const results = [];
    for (const p of posts) results.push(await processPublishJob(deps, p.id, jobCtx(5, 5)));
    expect(results.slice(0, 2)).toEqual([{ kind: 'done' }, { kind: 'done' }]);
    // One slot each, a window apart, never an attempt spent (even on the last one).
    expect(results.slice(2)).toEqual([
      expect.objectContaining({ kind: 'retry', delayMs: 60_000 + MARGIN, spendsAttempt: false }),
      expect.objectContaining({ kind: 'retry', delayMs: 60_000 + MARGIN, spendsAttempt: false }),
    ]);
    expect(calls(deps, 'tiktok')).toBe(2);
    expect(await targetOf(deps, posts[2]?.id ?? '')).toMatchObject({
      status: 'pending',
      errorCode: 'rate_limited',
      errorMessage: expect.stringMatching(
        /^waiting for the platform's limit \(2 per 1 min per connection\) until \d{4}-/,
      ),
    });
    const cold = await post(other.id);
    expect(await processPublishJob(deps, cold.id, jobCtx())).toEqual({ kind: 'done' });
    expect(calls(deps, 'tiktok')).toBe(3);

    // Early runs of a waiting job keep their slot and call nothing; at the slot they go.
    deps.clock.advance(30_000);
    expect((await processPublishJob(deps, posts[2]?.id ?? '', jobCtx())).kind).toBe('retry');
    expect(calls(deps, 'tiktok')).toBe(3);
    deps.clock.advance(30_000 + MARGIN);
    expect(await processPublishJob(deps, posts[2]?.id ?? '', jobCtx())).toEqual({ kind: 'done' });
    expect(await processPublishJob(deps, posts[3]?.id ?? '', jobCtx())).toEqual({ kind: 'done' });
    expect(calls(deps, 'tiktok')).toBe(5);
    expect((await targetOf(deps, posts[3]?.id ?? ''))?.status).toBe('published');
  });

  it("a platform's 429 blocks the connection until its reset, and the targets waiting behind it come back one slot apart", async () => {
    const { deps, alice, hot, post } = await setup();
    const [first, second, third] = [await post(hot.id), await post(hot.id), await post(hot.id)];
    const reset = new Date(deps.clock.now().getTime() + 300_000);
    deps.platforms.publisher('tiktok').script({
      kind: 'throttled',
      code: 'rate_limit_exceeded',
      message: 'Too many requests',
      retryAt: reset,
    });
    const refused = await processPublishJob(deps, first?.id ?? '', jobCtx());
    expect(refused).toMatchObject({ kind: 'retry', spendsAttempt: false });
    // The second post does not call the platform before the reset.
    const blocked = await processPublishJob(deps, second?.id ?? '', jobCtx());
    const third_ = await processPublishJob(deps, third?.id ?? '', jobCtx());
    expect(calls(deps, 'tiktok')).toBe(1);
    const delays = [refused, blocked, third_].map((r) => (r.kind === 'retry' ? r.delayMs : 0));
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(300_000);
    // Not all at the reset: two fit the window from then on, the third a window later.
    expect(delays[2]).toBeGreaterThanOrEqual(300_000 + 60_000);
    const state = unwrap(await getSocialAccount(deps, alice.actor, hot.id));
    expect(state.rateLimit).toMatchObject({ remaining: 0, blockedUntil: reset, waiting: 3 });
  });

  it('the call is counted when the publisher reaches it, after its preliminary calls, not when the run starts', async () => {
    const pacer = createMemoryPacer();
    const { deps, hot, post } = await setup(pacer);
    const start = deps.clock.now().getTime();
    // The platform's preliminary query (TikTok's creator info) takes 40 s before the init.
    deps.platforms.publisher('tiktok').beforeCounted(() => {
      deps.clock.advance(40_000);
    });
    expect(await processPublishJob(deps, (await post(hot.id)).id, jobCtx())).toEqual({
      kind: 'done',
    });
    const state = await pacer.state(`tiktok:${hot.id}`, TWO_PER_MINUTE, deps.clock.now());
    // Counted at the init (start + 40 s): it leaves the window a minute after that.
    expect(state.resetsAt?.getTime()).toBe(start + 40_000 + 60_000 + MARGIN);
  });

  it('out of budget at the counted call: the preliminary ran, the counted call did not, the target waits for its slot', async () => {
    const { deps, hot, post } = await setup();
    let preliminaries = 0;
    deps.platforms.publisher('tiktok').beforeCounted(() => {
      preliminaries += 1;
    });
    const posts = [await post(hot.id), await post(hot.id), await post(hot.id)];
    const results = [];
    for (const p of posts) results.push(await processPublishJob(deps, p.id, jobCtx()));
    expect(preliminaries).toBe(3);
    expect(calls(deps, 'tiktok')).toBe(2);
    expect(results[2]).toMatchObject({ kind: 'retry', spendsAttempt: false });
    expect(await targetOf(deps, posts[2]?.id ?? '')).toMatchObject({
      status: 'pending',
      errorCode: 'rate_limited',
    });
  });

  it('a publisher that wraps the deferral in its own error still leaves the target waiting, no attempt spent', async () => {
    const { deps, hot, post } = await setup();
    const posts = [await post(hot.id), await post(hot.id), await post(hot.id)];
    // The first two take the budget.
    for (const p of posts.slice(0, 2)) await processPublishJob(deps, p.id, jobCtx());
    deps.platforms.publisher('tiktok').beforeCounted(async (request) => {
      try {
        await request.beforeCountedCall();
      } catch {
        throw new Error('wrapped by the adapter');
      }
    });
    const third = await processPublishJob(deps, posts[2]?.id ?? '', jobCtx());
    expect(third).toMatchObject({ kind: 'retry', spendsAttempt: false });
    expect(await targetOf(deps, posts[2]?.id ?? '')).toMatchObject({
      status: 'pending',
      errorCode: 'rate_limited',
    });
  });

  it('a pacer that cannot answer lets the call through (the platform still decides), with a warning', async () => {
    const failing: ConnectionPacer = {
      take: async () => {
        throw new Error('redis down');
      },
      observe: async () => {},
      state: async () => {
        throw new Error('redis down');
      },
      close: async () => {},
    };
    const { deps, hot, post } = await setup(failing);
    expect(await processPublishJob(deps, (await post(hot.id)).id, jobCtx())).toEqual({
      kind: 'done',
    });
    expect(deps.logger.entries.some((e) => e.msg?.includes('pacer unavailable'))).toBe(true);
  });
});
