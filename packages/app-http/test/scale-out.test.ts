/**
 * Scale-out as teams run it: 2 API processes and 2 worker processes (the real entry points)
 * on a 3-node Redis Cluster, with PostgreSQL behind PgBouncer in transaction pooling. 200 posts,
 * created through both APIs, are all published, each exactly once (counted at the fake
 * TikTok), and the queue's keys live on the cluster under the hash-tagged prefix.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  type FakeTiktok,
  freePort,
  type MediaServer,
  type PgBouncer,
  pgBouncerUnavailable,
  type RedisCluster,
  startFakeTiktok,
  startMediaServer,
  startPgBouncer,
  startRedisCluster,
} from '../../testkit/src/index.ts';

const API_MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const WORKER_MAIN = new URL('../../app-worker/src/main.ts', import.meta.url).pathname;
const POSTS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const database = await createTestDatabase();
const skipReason = database.skipReason ?? pgBouncerUnavailable();

describe.skipIf(skipReason)(
  `2 APIs + 2 workers, Redis Cluster, PgBouncer${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let cluster: RedisCluster;
    let bouncer: PgBouncer;
    let tiktok: FakeTiktok;
    let media: MediaServer;
    const children: ChildProcess[] = [];
    const apis: string[] = [];
    const key = `sp_${randomBytes(20).toString('hex')}`;
    const stderr: string[] = [];

    beforeAll(async () => {
      if (!database.url) throw new Error('no database');
      [cluster, bouncer, tiktok, media] = await Promise.all([
        startRedisCluster(),
        startPgBouncer({ serverUrl: database.url, poolMode: 'transaction', poolSize: 10 }),
        startFakeTiktok(),
        startMediaServer(),
      ]);
      const env = (port: number) => ({
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: bouncer.via(database.url as string),
        // PgBouncer 1.18 in transaction pooling cannot keep named statements (docs/deploy.md).
        DATABASE_PREPARED_STATEMENTS: 'false',
        REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port: p }) => `${host}:${p}`).join(','),
        QUEUE_PREFIX: 'sp-scale',
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        BOOTSTRAP_API_KEY: key,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
        TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
        MEDIA_ALLOW_PRIVATE_NETWORKS: 'true',
        PLATFORM_POLL_INTERVAL_MS: '100',
        RECONCILE_INTERVAL_MS: '1000',
        RATE_LIMIT_MAX: '1000000',
        // 200 posts to one TikTok connection: paced at TikTok's real 6 a minute they would take
        // half an hour (pacing has its own tests).
        TIKTOK_RATE_LIMIT: 'off',
        WORKER_CONCURRENCY: '16',
        WORKER_PROCESSES: '1',
        LOG_LEVEL: 'warn',
      });
      const sharedKey = randomBytes(32).toString('base64');
      const launch = (file: string, args: string[], port: number) => {
        const child = spawn(process.execPath, [file, ...args], {
          env: { ...env(port), ENCRYPTION_KEY: sharedKey },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
        children.push(child);
      };
      const healthy = async (url: string) => {
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          const ok = await fetch(`${url}/health`).then(
            (response) => response.status === 200,
            () => false,
          );
          if (ok) return;
          await sleep(200);
        }
        throw new Error(`${url} did not become healthy: ${stderr.join('')}`);
      };
      // The first API migrates; the others start once the schema is there.
      for (let index = 0; index < 2; index++) {
        const port = await freePort();
        launch(API_MAIN, ['--api-only'], port);
        apis.push(`http://127.0.0.1:${port}`);
        await healthy(apis[index] as string);
      }
      for (let index = 0; index < 2; index++) launch(WORKER_MAIN, [], await freePort());
    }, 120_000);

    afterAll(async () => {
      for (const child of children) child.kill('SIGTERM');
      await sleep(1_000);
      for (const child of children) child.kill('SIGKILL');
      await Promise.allSettled([
        cluster?.close(),
        bouncer?.close(),
        tiktok?.close(),
        media?.close(),
      ]);
      await database.drop();
    }, 60_000);

    it(`${POSTS} posts through both APIs: all published, each once; the keys on the cluster`, async () => {
      const call = async <T>(api: string, method: string, path: string, body?: unknown) => {
        const response = await fetch(`${api}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as T };
      };
      const [first, second] = apis as [string, string];
      const account = await call<{ data: { id: string } }>(first, 'POST', '/social-accounts', {
        platform: 'tiktok',
        external_id: 'tt-scale',
        display_name: 'scale',
        access_token: 'token-scale',
      });
      expect(account.status, JSON.stringify(account.body)).toBe(201);
      const ids: string[] = [];
      const began = Date.now();
      for (let start = 0; start < POSTS; start += 20) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, (_, i) => start + i).map((index) =>
            call<{ data: { id: string } }>(index % 2 === 0 ? first : second, 'POST', '/posts', {
              content: `scale out ${index}`,
              social_account_ids: [account.body.data.id],
              media_urls: [media.url(`scale-${index}.mp4`, 1024)],
            }),
          ),
        );
        for (const created of batch) {
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          ids.push(created.body.data.id);
        }
      }
      const deadline = Date.now() + 90_000;
      let published = 0;
      while (Date.now() < deadline) {
        const listed = await call<{ data: Array<{ id: string; status: string }> }>(
          second,
          'GET',
          '/posts',
        );
        published = listed.body.data.filter(
          (post) => ids.includes(post.id) && post.status === 'published',
        ).length;
        if (published === POSTS) break;
        await sleep(500);
      }
      expect(published).toBe(POSTS);
      console.log(`scale-out: ${POSTS} posts created and published in ${Date.now() - began} ms`);
      const titles = tiktok.publishes.map(
        (publish) => (publish.body.post_info as { title?: string })?.title,
      );
      expect(titles).toHaveLength(POSTS);
      expect(new Set(titles).size).toBe(POSTS);

      const reader = new Cluster(cluster.nodes);
      try {
        await new Promise((resolve) => reader.once('ready', resolve));
        const keys = await Promise.all(
          reader.nodes('master').map((node) => node.keys('{sp-scale}:*')),
        );
        expect(keys.flat().length).toBeGreaterThan(0);
      } finally {
        await reader.quit();
      }
    }, 150_000);
  },
);
