/**
 * Redis for the tests: PING to decide whether a suite can run, SCAN + DEL to remove a test
 * prefix's keys. One short-lived ioredis connection per call.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';

async function withRedis<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Why Redis cannot be used, or undefined when it answers PING. */
export async function redisUnavailable(): Promise<string | undefined> {
  try {
    const reply = await withRedis((redis) => redis.ping());
    return reply === 'PONG' ? undefined : `unexpected PING reply ${String(reply)}`;
  } catch (error) {
    return `no Redis at ${REDIS_URL}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Every key starting with `prefix`. */
export function listKeys(prefix: string): Promise<string[]> {
  return withRedis(async (redis) => {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  });
}

/** Deletes every key starting with `prefix`; returns how many were deleted. */
export async function deleteKeys(prefix: string): Promise<number> {
  const keys = await listKeys(prefix);
  if (keys.length === 0) return 0;
  return withRedis(async (redis) => {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += 500)
      deleted += await redis.del(...keys.slice(i, i + 500));
    return deleted;
  });
}

let prefixes = 0;
/** A fresh queue prefix for this test file (braces: a Redis Cluster hash tag). */
export function uniquePrefix(label: string): string {
  prefixes += 1;
  return `{sp-test-worker-${label}-${process.pid}-${Date.now().toString(36)}-${prefixes}}`;
}
