/**
 * The scenarios on the production mode: real PostgreSQL (a fresh database from the testkit)
 * and BullMQ on the real Redis (a unique prefix for this file, its keys deleted after). The
 * API side is a runtime with role `api`, the worker a runtime with role `worker`; the SIGKILL
 * scenario runs `node packages/app-worker/src/main.ts` as child processes.
 */
import type { Config } from '@social-publisher/config';
import { createPost } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type FakeTiktok, startFakeTiktok } from '../../testkit/src/index.ts';
import { createRuntime, type Runtime, readQueueTuning } from '../src/runtime.ts';
import { startWorker, type Worker } from '../src/worker.ts';
import { spawnWorker } from './child.ts';
import {
  closedPort,
  FAST_TIMINGS,
  loadPost,
  seedAccount,
  testConfig,
  testLogger,
  waitFor,
  waitForStatus,
} from './harness.ts';
import { deleteKeys, listKeys, REDIS_URL, redisUnavailable, uniquePrefix } from './redis.ts';
import { defineScenarios, type System, tiktokInits, VIDEO_URL } from './scenarios.ts';

const database = await createTestDatabase();
const skipReason = database.skipReason ?? (await redisUnavailable());
const queueTuning = readQueueTuning(FAST_TIMINGS);
const log = testLogger('production');

describe.skipIf(skipReason)(
  `production mode (PostgreSQL + BullMQ)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const prefix = uniquePrefix('production');
    const prefixes = [prefix];
    let config: Config;
    let tiktok: FakeTiktok;
    let api: Runtime;
    let worker: Worker;
    let system: System;

    async function startWorkerRuntime(): Promise<Worker> {
      const runtime = await createRuntime(config, log.logger, { role: 'worker', queueTuning });
      return startWorker(runtime, config);
    }

    beforeAll(async () => {
      tiktok = await startFakeTiktok();
      config = testConfig({
        DATABASE_URL: database.url,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
      });
      api = await createRuntime(config, log.logger, { role: 'api' });
      expect(api.queueKind).toBe('redis');
      expect(api.databaseKind).toBe('postgres');
      expect(api.consumer).toBeNull();
      worker = await startWorkerRuntime();
      const seeded = await seedAccount(api.deps, ['twitter', 'linkedin', 'tiktok']);
      system = {
        api: () => api.deps,
        repos: () => api.deps.repos,
        reconcileNow: () => worker.reconcileNow(),
        restart: async () => {
          await worker.stop();
          worker = await startWorkerRuntime();
        },
        restartLeadMs: 2_500,
        unreachableApi: async () => {
          // A producer pointed at a closed port: Redis is down as far as it can tell.
          const down = testConfig({
            DATABASE_URL: database.url,
            REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
            QUEUE_PREFIX: prefix,
            TIKTOK_API_BASE_URL: tiktok.baseUrl,
          });
          const runtime = await createRuntime(down, log.logger, { role: 'api' });
          expect(await runtime.checks.queue()).toBe(false);
          return { deps: runtime.deps, close: () => runtime.close() };
        },
        tiktok,
        seeded,
        log,
      };
    }, 60_000);

    afterAll(async () => {
      await worker?.stop();
      await api?.close();
      await tiktok?.close();
      for (const used of prefixes) await deleteKeys(used);
      expect(await listKeys(prefix)).toEqual([]);
      await database.drop();
    }, 60_000);

    it('reports the database and the queue healthy', async () => {
      expect(await api.checks.database()).toBe(true);
      expect(await api.checks.queue()).toBe(true);
    });

    defineScenarios(() => system);

    it('a worker killed with SIGKILL mid-publish: another worker finishes it, one publish per target', async () => {
      // Its own database and prefix: no other worker may touch this post before the kill.
      const killDb = await createTestDatabase();
      const killPrefix = uniquePrefix('sigkill');
      prefixes.push(killPrefix);
      const env = {
        DATABASE_URL: killDb.url ?? '',
        REDIS_URL,
        QUEUE_PREFIX: killPrefix,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
      };
      const killConfig = testConfig(env);
      const producer = await createRuntime(killConfig, log.logger, { role: 'api' });
      const first = spawnWorker('first', env);
      let second: ReturnType<typeof spawnWorker> | undefined;
      try {
        const seeded = await seedAccount(producer.deps, ['tiktok']);
        await first.started;

        // TikTok keeps the publish "processing" until told otherwise: the worker sits polling.
        tiktok.script({ processingPolls: 100_000 });
        const content = `sigkill ${Date.now()}`;
        const created = await createPost(
          producer.deps,
          seeded.ctx,
          { content, platforms: ['tiktok'], media_urls: [VIDEO_URL] },
          'now',
        );
        if (!created.ok) throw new Error(JSON.stringify(created.error));
        const postId = created.value.id;
        const publish = await waitFor('the first worker to be polling TikTok', () => {
          const init = tiktokInits(tiktok, content)[0];
          return init && init.statusFetches >= 2 ? init : undefined;
        });

        const mid = await loadPost(producer.deps.repos, postId);
        expect(mid.status).toBe('publishing');
        expect(mid.targets[0]?.status).toBe('publishing');
        expect(mid.targets[0]?.resumeState).toMatchObject({ publishId: publish.publishId });

        first.process.kill('SIGKILL');
        expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
        publish.pollsLeft = 0; // TikTok finishes processing: the next status fetch says PUBLISH_COMPLETE

        second = spawnWorker('second', env);
        await second.started;
        const done = await waitForStatus(producer.deps.repos, postId, 'published', 15_000);
        const target = done.targets[0];
        expect(target?.status).toBe('published');
        expect(target?.platformPostId).toBe(publish.postId);
        // One init (publish) per target: the second worker resumed the stored publish_id.
        expect(tiktokInits(tiktok, content)).toHaveLength(1);
        expect(target?.attempts).toBe(2);

        // Graceful shutdown of the survivor: SIGTERM, exit 0.
        second.process.kill('SIGTERM');
        expect(await second.exited).toMatchObject({ code: 0 });
        expect(second.messages()).toContain('worker stopped');
      } finally {
        first.process.kill('SIGKILL');
        second?.process.kill('SIGKILL');
        await producer.close();
        await killDb.drop();
      }
    }, 40_000);
  },
);
