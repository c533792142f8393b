/**
 * list: GET /posts for a user with 10,000 posts x 3 targets (seeded with multi-row INSERTs),
 * time to the last byte of the response, one request at a time.
 * Floor: the same two SQL statements run raw through the same driver, plus JSON.stringify of
 * the rows grouped by post.
 */
import type { Config } from '@social-publisher/config';
import { listPosts } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { startApi } from '../lib/api.ts';
import { type Bench, type BenchOptions, eachMode } from '../lib/bench.ts';
import { cpuLine, groupsFor, startCpuMeter } from '../lib/cpu.ts';
import {
  benchConfig,
  benchLogger,
  createBackend,
  databaseNameOf,
  MODE_LABEL,
  type Mode,
  type SeededUser,
  seedUser,
} from '../lib/infra.ts';
import { profile, profileLines } from '../lib/profile.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, fmtRuns, median } from '../lib/stats.ts';
import { withStorage } from '../lib/storage.ts';

const MB = 1024 * 1024;

function sizes(smoke: boolean) {
  return smoke ? { posts: 200, runs: 2 } : { posts: 10_000, runs: 5 };
}

// biome-ignore lint/suspicious/noExplicitAny: raw SQL against any schema
type AnyDb = Kysely<any>;

/** posts x 3 targets for one user, generated in SQL (two multi-row INSERT ... SELECT). */
async function seedPosts(db: AnyDb, seeded: SeededUser, count: number): Promise<void> {
  const connections = ['tiktok', 'instagram', 'youtube'].map(
    (platform) => seeded.connections[platform as 'tiktok'] as string,
  );
  await sql`
    INSERT INTO posts (id, account_id, created_by, content, media_urls, platform_options,
                       scheduled_at, status, created_at, updated_at)
    SELECT gen_random_uuid(), ${seeded.ctx.accountId}, ${seeded.userId},
           'Post number ' || n || ': a short caption with a link https://example.com/p/' || n,
           ARRAY['https://cdn.example.com/media/' || n || '.mp4'],
           '{"tiktok":{"tiktokPrivacy":"SELF_ONLY"}}'::jsonb,
           NULL, 'published',
           timestamptz '2030-01-01' + n * interval '1 second',
           timestamptz '2030-01-01' + n * interval '1 second'
    FROM generate_series(1, ${count}) AS n`.execute(db);
  await sql`
    INSERT INTO post_targets (id, post_id, position, platform, social_account_id, status,
                              attempts, platform_post_id, platform_url, published_at, updated_at)
    SELECT gen_random_uuid(), p.id, t.position,
           (ARRAY['tiktok', 'instagram', 'youtube'])[t.position + 1],
           (${connections}::uuid[])[t.position + 1],
           'published', 1, 'platform-' || t.position || '-' || p.id, NULL, p.created_at, p.created_at
    FROM posts p CROSS JOIN generate_series(0, 2) AS t(position)
    WHERE p.created_by = ${seeded.userId}`.execute(db);
  await sql`ANALYZE`.execute(db);
}

/** The floor: the repository's two statements, raw, then JSON.stringify; returns ms and bytes. */
async function floorOnce(db: AnyDb, userId: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const posts = await sql<Record<string, unknown> & { id: string }>`
    SELECT id, account_id, created_by, content, media_urls, platform_options, scheduled_at,
           status, created_at, updated_at
    FROM posts WHERE created_by = ${userId}
    ORDER BY created_at DESC, id DESC`.execute(db);
  const ids = posts.rows.map((row) => row.id);
  const targets = await sql<Record<string, unknown> & { post_id: string }>`
    SELECT id, post_id, platform, social_account_id, status, attempts, error_code,
           error_message, retryable, platform_post_id, platform_url, published_at, updated_at
    FROM post_targets WHERE post_id = any(${ids}::uuid[])
    ORDER BY post_id, position`.execute(db);
  const byPost = new Map<string, unknown[]>();
  for (const post of posts.rows) {
    const list: unknown[] = [];
    post.post_targets = list;
    byPost.set(post.id, list);
  }
  for (const target of targets.rows) byPost.get(target.post_id)?.push(target);
  const text = JSON.stringify({ data: posts.rows });
  return { ms: performance.now() - started, bytes: Buffer.byteLength(text) };
}

async function apiOnce(url: string, key: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET /posts answered ${response.status}`);
  return { ms, bytes: body.byteLength };
}

interface Prepared {
  config: Config;
  seeded: SeededUser;
  floor: Array<{ ms: number; bytes: number }>;
  cleanup(): Promise<void>;
}

async function prepare(mode: Mode, posts: number, floorRuns: number): Promise<Prepared> {
  const backend = await createBackend(mode, 'list');
  try {
    const config = benchConfig(backend);
    // PGlite serves one process at a time: seed and measure the floor first, then the API.
    const { seeded, floor } = await withStorage(config, async ({ handle, deps }) => {
      const user = await seedUser(deps, ['tiktok', 'instagram', 'youtube']);
      await seedPosts(handle.db as AnyDb, user, posts);
      await floorOnce(handle.db as AnyDb, user.userId); // warm-up
      const runs: Array<{ ms: number; bytes: number }> = [];
      for (let run = 0; run < floorRuns; run++)
        runs.push(await floorOnce(handle.db as AnyDb, user.userId));
      return { seeded: user, floor: runs };
    });
    return { config, seeded, floor, cleanup: () => backend.cleanup() };
  } catch (error) {
    await backend.cleanup();
    throw error;
  }
}

async function runMode(mode: Mode, options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const { posts, runs } = sizes(options.smoke);
  const label = MODE_LABEL[mode];
  const prepared = await prepare(mode, posts, runs);
  try {
    const api = await startApi(mode, prepared.config, benchLogger(`list ${mode}`).logger);
    const url = `${api.origin}/posts`;
    const apiRuns: Array<{ ms: number; bytes: number }> = [];
    try {
      const first = await fetch(url, {
        headers: { authorization: `Bearer ${prepared.seeded.rawKey}` },
      });
      const json = (await first.json()) as { data: Array<{ post_targets: unknown[] }> };
      if (json.data.length !== posts || json.data[0]?.post_targets.length !== 3) {
        throw new Error(`GET /posts returned ${json.data.length} posts`);
      }
      const meter = startCpuMeter(groupsFor(databaseNameOf(prepared.config)));
      for (let run = 0; run < runs; run++) apiRuns.push(await apiOnce(url, prepared.seeded.rawKey));
      out(`list ${label} API: ${cpuLine(meter.stop())}`);
    } finally {
      await api.close();
    }
    const apiMs = median(apiRuns.map((r) => r.ms));
    const floorMs = median(prepared.floor.map((r) => r.ms));
    out(
      `list ${label}: ${posts} posts x 3 targets; API ${fmt(apiMs, 0)} ms (runs ${fmtRuns(
        apiRuns.map((r) => r.ms),
        0,
      )}), ${fmt((apiRuns[0]?.bytes ?? 0) / MB, 1)} MB; floor ${fmt(floorMs, 0)} ms (runs ${fmtRuns(
        prepared.floor.map((r) => r.ms),
        0,
      )}), ${fmt((prepared.floor[0]?.bytes ?? 0) / MB, 1)} MB; ratio ${fmt(apiMs / floorMs, 2)}`,
    );
    return [
      {
        bench: 'list',
        name: `list ${label}: GET /posts (${posts} x 3)`,
        value: apiMs,
        unit: 'ms',
        digits: 0,
      },
      {
        bench: 'list',
        name: `list ${label}: floor (raw SQL + JSON.stringify)`,
        value: floorMs,
        unit: 'ms',
        digits: 0,
      },
      {
        bench: 'list',
        name: `list ${label}: ratio API / floor`,
        value: apiMs / floorMs,
        unit: 'x',
        target: { op: '<=', value: 2 },
        digits: 2,
      },
    ];
  } finally {
    await prepared.cleanup();
  }
}

export const listBench: Bench = {
  name: 'list',
  run: eachMode(runMode),
  async diagnose(options, figureName) {
    const mode: Mode = figureName.includes(MODE_LABEL.embedded) ? 'embedded' : 'production';
    const { out } = options;
    const { posts } = sizes(options.smoke);
    const label = `list ${MODE_LABEL[mode]}`;
    const prepared = await prepare(mode, posts, 3);
    try {
      const api = await startApi(mode, prepared.config, benchLogger(`list ${mode}`).logger);
      try {
        const { deps } = api.runtime;
        const actor = prepared.seeded.actor;
        await listPosts(deps, actor);
        // Per stage, each the median of 3: repository (SQL + rows), JSON of the entities, HTTP total.
        const stage = async (fn: () => Promise<unknown> | unknown) => {
          const times: number[] = [];
          for (let run = 0; run < 3; run++) {
            const started = performance.now();
            await fn();
            times.push(performance.now() - started);
          }
          return median(times);
        };
        let entities: unknown[] = [];
        const repoMs = await stage(async () => {
          entities = await listPosts(deps, actor);
        });
        const stringifyMs = await stage(() => JSON.stringify({ data: entities }));
        const httpMs = await stage(() => apiOnce(`${api.origin}/posts`, prepared.seeded.rawKey));
        out(
          `${label}: floor ${fmt(median(prepared.floor.map((r) => r.ms)), 0)} ms; listPosts (repository: 2 queries + rows to entities) ${fmt(repoMs, 0)} ms; JSON.stringify of the entities ${fmt(stringifyMs, 0)} ms; whole GET /posts ${fmt(httpMs, 0)} ms (the rest: auth, presentPost mapping, schema serializer, transfer)`,
        );
        const { summary } = await profile(async () => {
          for (let run = 0; run < 3; run++)
            await apiOnce(`${api.origin}/posts`, prepared.seeded.rawKey);
        });
        for (const line of profileLines(summary, `${label} API (3 requests)`)) out(line);
      } finally {
        await api.close();
      }
    } finally {
      await prepared.cleanup();
    }
  },
};
