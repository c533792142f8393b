/** Two API processes sharing one Redis share one rate limit (skipped when no Redis answers). */
import { connectRateLimitRedis } from '@social-publisher/runtime';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectError, type Harness } from './support.ts';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const available = await redisAnswers();

describe.skipIf(!available)(`rate limit on Redis (${url})`, () => {
  let one: Harness;
  let two: Harness;
  beforeAll(async () => {
    const config = {
      queuePrefix: `sp-test-${process.pid}-${Date.now()}`,
      rateLimit: { max: 3, windowMs: 10_000 },
    };
    // Each "process" with its own connection, as the runtime builds it.
    one = await createHarness({ config, rateLimitRedis: await connectRateLimitRedis(url) });
    two = await createHarness({ config, rateLimitRedis: await connectRateLimitRedis(url) });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it('counts a credential across processes', async () => {
    // Both harnesses seed the same sequential ids, so alice's key id is the same in both.
    expect(one.alice.apiKey.id).toBe(two.alice.apiKey.id);
    const statuses: number[] = [];
    for (const h of [one, two, one]) {
      statuses.push(
        (await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) })).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await two.call({ method: 'GET', url: '/posts', headers: two.as(two.alice) });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
