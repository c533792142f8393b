// Production mode with REDIS_SENTINELS instead of REDIS_URL: the API's producer, the worker's
// consumer and the API's rate limiter all reach the master through the sentinel, /health says
// Redis is up, and posts created before and after a SENTINEL FAILOVER are all published.
import { createPost } from '@social-publisher/domain';
import { createRuntime, type Runtime, startWorker, type Worker } from '@social-publisher/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  type RedisSentinelSet,
  startRedisSentinel,
} from '../../testkit/src/index.ts';
import { seedAccount, testConfig, testLogger, waitFor } from './harness.ts';

const database = await createTestDatabase();
const log = testLogger('sentinel');

describe.skipIf(database.skipReason)(
  `production mode on Redis Sentinel${database.skipReason ? ` (skipped: ${database.skipReason})` : ''}`,
  () => {
    let set: RedisSentinelSet;
    let api: Runtime;
    let worker: Worker;

    beforeAll(async () => {
      set = await startRedisSentinel();
      const config = testConfig({
        DATABASE_URL: database.url,
        REDIS_SENTINELS: set.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
        REDIS_SENTINEL_MASTER: set.master,
      });
      api = await createRuntime(config, log.logger, { role: 'api' });
      worker = await startWorker(
        await createRuntime(config, log.logger, { role: 'worker' }),
        config,
      );
    }, 60_000);

    afterAll(async () => {
      await worker?.stop();
      await api?.close();
      await set?.close();
      await database.drop();
    }, 60_000);

    it('publishes posts created before and after a failover; Redis health and rate limiter answer', async () => {
      expect(api.queueKind).toBe('redis');
      expect(await api.checks.queue()).toBe(true);
      expect(await api.rateLimitRedis?.ping()).toBe('PONG');
      const seeded = await seedAccount(api.deps, ['twitter', 'linkedin']);
      const create = async (content: string) => {
        const result = await createPost(
          api.deps,
          seeded.ctx,
          { content, platforms: ['twitter', 'linkedin'] },
          'now',
        );
        if (!result.ok) throw new Error(JSON.stringify(result.error));
        return result.value.id;
      };
      const ids = [await create('before the failover 1'), await create('before the failover 2')];
      await set.failover();
      ids.push(await create('after the failover 1'), await create('after the failover 2'));
      await waitFor(
        'every post published',
        async () => {
          const posts = await Promise.all(ids.map((id) => api.deps.repos.posts.findById(id)));
          return posts.every((post) => post?.status === 'published');
        },
        30_000,
        100,
      );
      await waitFor('Redis health after the failover', () => api.checks.queue(), 10_000, 100);
    }, 60_000);
  },
);
