/**
 * The scenarios on the production mode: real PostgreSQL (a fresh database from the testkit)
 * and BullMQ on the real Redis (a unique prefix for this file, its keys deleted after). The
 * API side is a runtime with role `api`, the worker a runtime with role `worker` (the worker
 * process itself, killed mid-publish, is tested in packages/app-worker).
 */
import type { Config } from '@social-publisher/config';
import { createRuntime, type Runtime, startWorker, type Worker } from '@social-publisher/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type FakeTiktok, startFakeTiktok } from '../../testkit/src/index.ts';
import { closedPort, seedAccount, testConfig, testLogger } from './harness.ts';
import { deleteKeys, listKeys, REDIS_URL, redisUnavailable, uniquePrefix } from './redis.ts';
import { defineScenarios, type System } from './scenarios.ts';

const database = await createTestDatabase();
const skipReason = database.skipReason ?? (await redisUnavailable());
const log = testLogger('production');

describe.skipIf(skipReason)(
  `production mode (PostgreSQL + BullMQ)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const prefix = uniquePrefix('production');
    let config: Config;
    let tiktok: FakeTiktok;
    let api: Runtime;
    let worker: Worker;
    let system: System;

    async function startWorkerRuntime(): Promise<Worker> {
      const runtime = await createRuntime(config, log.logger, { role: 'worker' });
      return startWorker(runtime, config);
    }

    beforeAll(async () => {
      tiktok = await startFakeTiktok();
      config = testConfig({
        DATABASE_URL: database.url,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
        TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
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
            TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
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
      await deleteKeys(prefix);
      expect(await listKeys(prefix)).toEqual([]);
      await database.drop();
    }, 60_000);

    it('reports the database and the queue healthy', async () => {
      expect(await api.checks.database()).toBe(true);
      expect(await api.checks.queue()).toBe(true);
    });

    defineScenarios(() => system);
  },
);
