/**
 * pacing: one TikTok connection with 60 posts due at the same instant against a fake that
 * enforces 6 init calls per 10 s per token (TIKTOK_RATE_LIMIT=6/10s), beside 10 other
 * connections with 3 posts each, due at the same instant. Figures: the init calls the fake
 * refused (429) against 10 % of the hot connection's posts; the p99 of the other connections'
 * starts (their init call's arrival at the fake - the due time) against 5 s; the hot
 * connection's last init call against 1.3 x the ideal time the limit allows
 * ((ceil(60 / 6) - 1) x 10 s). Real TikTok publisher, real queue and pacer of each mode.
 */
import type { Config } from '@social-publisher/config';
import { connectSocialAccount, createPost, TERMINAL_POST_STATUSES } from '@social-publisher/domain';
import { createRuntime, startWorker } from '@social-publisher/runtime';
import { startFakeTiktok, startMediaServer } from '@social-publisher/testkit';
import { type Bench, type BenchOptions, eachMode } from '../lib/bench.ts';
import {
  benchConfig,
  benchLogger,
  createBackend,
  MODE_LABEL,
  type Mode,
  seedUser,
} from '../lib/infra.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, percentile, sleep, waitUntil } from '../lib/stats.ts';

function sizes(smoke: boolean) {
  return smoke
    ? { hotPosts: 12, others: 3, perOther: 2, limit: 6, windowMs: 1_000 }
    : { hotPosts: 60, others: 10, perOther: 3, limit: 6, windowMs: 10_000 };
}

const INIT_PATH = '/v2/post/publish/video/init/';

async function runMode(mode: Mode, options: BenchOptions): Promise<Figure[]> {
  const size = sizes(options.smoke);
  const label = MODE_LABEL[mode];
  const backend = await createBackend(mode, 'pacing');
  const tiktok = await startFakeTiktok({
    initRateLimit: { limit: size.limit, windowMs: size.windowMs, retryAfterHeader: true },
  });
  const media = await startMediaServer();
  try {
    const config: Config = benchConfig(backend, {
      TIKTOK_API_BASE_URL: tiktok.baseUrl,
      TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
      TIKTOK_RATE_LIMIT: `${size.limit}/${size.windowMs}ms`,
      PLATFORM_POLL_INTERVAL_MS: '50',
      MEDIA_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const { logger } = benchLogger(`pacing ${mode}`);
    const runtime = await createRuntime(config, logger, {
      role: mode === 'production' ? 'worker' : 'embedded',
    });
    const worker = await startWorker(runtime, config);
    try {
      const { deps } = runtime;
      const seeded = await seedUser(deps, []);
      const connect = async (name: string) => {
        const created = await connectSocialAccount(deps, seeded.ctx, {
          platform: 'tiktok',
          externalId: name,
          accessToken: `token-${name}`,
        });
        if (!created.ok) throw new Error(`connect: ${JSON.stringify(created.error)}`);
        return created.value.id;
      };
      const hot = await connect('hot');
      const others = [];
      for (let i = 0; i < size.others; i++) others.push(await connect(`other-${i}`));

      // Every init call's arrival at the fake, by token (the fake records requests in order).
      const arrivals: Array<{ token: string; at: number }> = [];
      let seen = 0;
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          for (; seen < tiktok.requests.length; seen++) {
            const request = tiktok.requests[seen];
            if (request?.path !== INIT_PATH) continue;
            const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
            arrivals.push({ token, at: Date.now() });
          }
          await sleep(5);
        }
      })();

      const due = new Date(Date.now() + 3_000);
      const video = media.url('pacing.mp4', 1024);
      const post = async (connectionId: string, index: number) => {
        const created = await createPost(
          deps,
          seeded.ctx,
          {
            content: `pacing ${index}`,
            social_account_ids: [connectionId],
            media_urls: [video],
            scheduled_at: due.toISOString(),
          },
          'scheduled',
        );
        if (!created.ok) throw new Error(`post: ${JSON.stringify(created.error)}`);
        return created.value.id;
      };
      const ids: string[] = [];
      for (let i = 0; i < size.hotPosts; i++) ids.push(await post(hot, i));
      for (const other of others)
        for (let i = 0; i < size.perOther; i++) ids.push(await post(other, i));
      if (Date.now() >= due.getTime()) throw new Error('posts were not all created before due');

      const idealMs = (Math.ceil(size.hotPosts / size.limit) - 1) * size.windowMs;
      await waitUntil(
        'every post to finish',
        async () => {
          const posts = await Promise.all(ids.map((id) => deps.repos.posts.findById(id)));
          return posts.every((p) => p !== null && TERMINAL_POST_STATUSES.includes(p.status));
        },
        idealMs * 3 + 60_000,
        250,
      );
      const finishedMs = Date.now() - due.getTime();
      watching = false;
      await watcher;

      const posts = await Promise.all(ids.map((id) => deps.repos.posts.findById(id)));
      const published = posts.filter((p) => p?.status === 'published').length;
      const hotCalls = arrivals.filter((a) => a.token === 'token-hot');
      const otherStarts = arrivals
        .filter((a) => a.token !== 'token-hot')
        .map((a) => a.at - due.getTime());
      const hotLastMs = Math.max(...hotCalls.map((a) => a.at)) - due.getTime();
      const refused = tiktok.rateLimitedCalls;
      options.out(
        `pacing ${label}: ${size.hotPosts} posts to one connection (${size.limit} per ${size.windowMs / 1000} s) + ${size.others} x ${size.perOther} to others; ${published}/${ids.length} published; ${hotCalls.length} hot init calls, ${refused} refused; all finished ${fmt(finishedMs / 1000, 1)} s after due`,
      );
      return [
        {
          bench: 'pacing',
          name: `pacing ${label}: refused calls (429), % of the hot connection's posts`,
          value: (refused / size.hotPosts) * 100,
          unit: '%',
          target: { op: '<=', value: 10 },
          digits: 1,
        },
        {
          bench: 'pacing',
          name: `pacing ${label}: other connections' posts started after due, p99`,
          value: percentile(otherStarts, 99) / 1000,
          unit: 's',
          target: { op: '<=', value: 5 },
          digits: 2,
        },
        {
          bench: 'pacing',
          name: `pacing ${label}: hot connection's last call after due`,
          value: hotLastMs / 1000,
          unit: 's',
          target: { op: '<=', value: (idealMs * 1.3) / 1000 },
          digits: 1,
        },
        {
          bench: 'pacing',
          name: `pacing ${label}: ideal time the limit allows`,
          value: idealMs / 1000,
          unit: 's',
          digits: 1,
        },
        {
          bench: 'pacing',
          name: `pacing ${label}: posts published`,
          value: published,
          unit: `of ${ids.length}`,
          target: { op: '>=', value: ids.length },
          digits: 0,
        },
      ];
    } finally {
      await worker.stop();
    }
  } finally {
    await Promise.allSettled([tiktok.close(), media.close()]);
    await backend.cleanup();
  }
}

export const pacingBench: Bench = {
  name: 'pacing',
  run: eachMode(runMode),
  async diagnose(options) {
    options.out('pacing: no diagnosis beyond the run itself (the figures are timings of calls)');
  },
};
