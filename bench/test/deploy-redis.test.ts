import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { deployedRedisHz, startDeployRedis } from '../src/lib/deploy-redis.ts';

describe('the schedule bench measures against Redis as deployed', () => {
  it('reads the hz compose.yaml gives redis-server, and refuses a file without one', () => {
    expect(deployedRedisHz()).toBe(100);
    expect(deployedRedisHz('command: ["redis-server", "--hz", "50"]')).toBe(50);
    expect(() => deployedRedisHz('command: ["redis-server"]')).toThrow(/no --hz/);
  });

  it('starts its own redis-server running at that hz', async () => {
    const server = await startDeployRedis();
    const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      expect(await redis.config('GET', 'hz')).toEqual(['hz', String(server.hz)]);
    } finally {
      redis.disconnect();
      await server.close();
    }
  });
});
