/**
 * Pacing end to end, in both modes: a burst of posts to one account against fakes that enforce
 * per-user rate limits ends with every post published and none failed for rate limiting. The
 * limits keep the platforms' counts (TikTok: 6 init calls per window per user token) with the
 * window compressed from a minute to a second, so the test takes seconds, not minutes.
 * TikTok is paced a little under the fake's limit (TIKTOK_RATE_LIMIT=5/1s against 6 per second),
 * as an operator would: a compressed 1 s window leaves the pacer a 50 ms margin, which the
 * scheduling jitter of a loaded test machine exceeds. The burst is spread ahead of the limit
 * instead of refused. X is paced looser than its fake allows, so the fake's 429 and
 * x-rate-limit-reset still decide: the platform's counters remain the truth.
 */
import { describe, expect, it } from 'vitest';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const BURST = 30;
const TERMINAL = new Set(['published', 'partial', 'failed', 'cancelled']);

interface TargetJson {
  platform: string;
  status: string;
  platform_post_id: string | null;
  error_code: string | null;
}
interface PostJson {
  id: string;
  status: string;
  post_targets: TargetJson[];
}

async function connect(system: System, platform: string, externalId: string): Promise<string> {
  const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
    platform,
    external_id: externalId,
    display_name: `${platform} burst`,
    access_token: `token-${platform}-burst`,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id;
}

async function burst(system: System, body: (index: number) => unknown): Promise<PostJson[]> {
  const ids: string[] = [];
  for (let index = 0; index < BURST; index += 1) {
    const created = await system.api.call<{ data: { id: string } }>('POST', '/posts', body(index));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    ids.push(created.body.data.id);
  }
  return waitFor(
    `${BURST} posts to finish`,
    async () => {
      const posts = await Promise.all(
        ids.map(async (id) => {
          const got = await system.api.call<{ data: PostJson }>('GET', `/posts/${id}`);
          return got.body.data;
        }),
      );
      return posts.every((post) => TERMINAL.has(post.status)) ? posts : undefined;
    },
    60_000,
    250,
  );
}

const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('pacing, %s mode', (mode) => {
  const e2e = useSystem(mode, {
    // Five windows' worth of posts with two attempts each: only waits that spend no attempt
    // can publish them all.
    env: { PUBLISH_MAX_ATTEMPTS: '2', TIKTOK_RATE_LIMIT: '5/1s', X_RATE_LIMIT: '10/1s' },
    fakes: {
      tiktok: { initRateLimit: { limit: 6, windowMs: 1_000, retryAfterHeader: true } },
      // X: 100 posts per 15 minutes per user, compressed to 5 per second.
      x: { postLimit: { limit: 5, windowMs: 1_000 } },
    },
  });

  it(`a burst of ${BURST} posts to one TikTok account: every post published, none failed for rate limiting`, async (context) => {
    const system = e2e.orSkip(context);
    const account = await connect(system, 'tiktok', 'tt-burst');
    const video = system.media.url('burst.mp4', 1024);
    const started = Date.now();
    const posts = await burst(system, (index) => ({
      content: `burst ${index}`,
      social_account_ids: [account],
      media_urls: [video],
    }));
    expect(posts.map((post) => post.status)).toEqual(posts.map(() => 'published'));
    expect(new Set(posts.map((post) => post.post_targets[0]?.platform_post_id)).size).toBe(BURST);
    // Paced ahead: (almost) nothing refused, every post reached the platform exactly once, and
    // the burst took about the windows it needs (5 after the first at 5 a second), not much more.
    expect(system.tiktok.rateLimitedCalls).toBeLessThanOrEqual(BURST / 10);
    expect(system.tiktok.publishes).toHaveLength(BURST);
    expect(Date.now() - started).toBeLessThan(20_000);
    const detail = await system.api.call<{ data: { rate_limit: Record<string, unknown> | null } }>(
      'GET',
      `/social-accounts/${account}`,
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data.rate_limit).toMatchObject({
      limit: 5,
      window_seconds: 1,
      remaining: expect.any(Number),
      waiting: 0,
    });
  }, 90_000);

  it(`a burst of ${BURST} posts to one X account waits for x-rate-limit-reset: every post published once`, async (context) => {
    const system = e2e.orSkip(context);
    const account = await connect(system, 'twitter', system.x.user.id);
    const before = system.x.tweets.length;
    const from = system.x.requests.length;
    const posts = await burst(system, (index) => ({
      content: `x burst ${index}`,
      social_account_ids: [account],
    }));
    expect(posts.map((post) => post.status)).toEqual(posts.map(() => 'published'));
    const refused =
      system.x.requests.slice(from).filter((request) => request.path === '/2/tweets').length -
      BURST;
    expect(refused).toBeGreaterThan(0);
    expect(system.x.tweets.length - before).toBe(BURST);
  }, 90_000);
});
