// Production mode with REDIS_CLUSTER_NODES: the producer, the worker's consumer and the API's
// rate limiter on a real 3-node Redis Cluster (started here); the queue prefix gets its hash
// tag by itself; /health says Redis is up; posts are published.
import { createPost } from '@social-publisher/domain';
import { createRuntime, type Runtime, startWorker, type Worker } from '@social-publisher/runtime';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  type RedisCluster,
  startRedisCluster,
} from '../../testkit/src/index.ts';
import { seedAccount, testConfig, testLogger, waitFor } from './harness.ts';

const database = await createTestDatabase();
const log = testLogger('cluster');

describe.skipIf(database.skipReason)(
  `production mode on a Redis Cluster${database.skipReason ? ` (skipped: ${database.skipReason})` : ''}`,
  () => {
    let cluster: RedisCluster;
    let api: Runtime;
    let worker: Worker;

    beforeAll(async () => {
      cluster = await startRedisCluster();
      const config = testConfig({
        DATABASE_URL: database.url,
        REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','),
        QUEUE_PREFIX: 'sp-cluster-runtime',
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
      await cluster?.close();
      await database.drop();
    }, 60_000);

    it('publishes posts; the keys carry the hash tag and live on the cluster', async () => {
      expect(api.queueKind).toBe('redis');
      await waitFor('Redis health', () => api.checks.queue(), 10_000, 100);
      expect(await api.rateLimitRedis?.ping()).toBe('PONG');
      const seeded = await seedAccount(api.deps, ['twitter', 'linkedin']);
      const ids: string[] = [];
      for (let index = 0; index < 10; index++) {
        const result = await createPost(
          api.deps,
          seeded.ctx,
          { content: `on the cluster ${index}`, platforms: ['twitter', 'linkedin'] },
          'now',
        );
        if (!result.ok) throw new Error(JSON.stringify(result.error));
        ids.push(result.value.id);
      }
      await waitFor(
        'every post published',
        async () => {
          const posts = await Promise.all(ids.map((id) => api.deps.repos.posts.findById(id)));
          return posts.every((post) => post?.status === 'published');
        },
        30_000,
        100,
      );
      const reader = new Cluster(cluster.nodes);
      try {
        await new Promise((resolve) => reader.once('ready', resolve));
        // KEYS answers for one node: ask every master.
        const keys = await Promise.all(
          reader.nodes('master').map((node) => node.keys('{sp-cluster-runtime}:*')),
        );
        expect(keys.flat().length).toBeGreaterThan(0);
      } finally {
        await reader.quit();
      }
    }, 60_000);
  },
);
