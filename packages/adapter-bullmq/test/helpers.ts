import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Unique per test run: every key this run creates starts with it (braces: a Cluster hash tag). */
export const RUN_PREFIX = `{sptest-${process.pid}-${Date.now().toString(36)}`;
let prefixes = 0;

/** A fresh prefix for one test, inside this run's namespace. */
export function newPrefix(): string {
  prefixes += 1;
  return `${RUN_PREFIX}-${prefixes}}`;
}

/** Why Redis cannot be used (reported in the skipped suite's name), or undefined if it answers. */
export async function redisUnavailableReason(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `no Redis at ${REDIS_URL}: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    client.disconnect();
  }
}

/** Deletes every key whose name starts with `prefix`; returns how many were deleted. */
export async function deleteKeys(prefix: string): Promise<number> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    client.disconnect();
  }
}

/** Every key under `prefix` (for assertions on the layout). */
export async function listKeys(prefix: string): Promise<string[]> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found.sort();
  } finally {
    client.disconnect();
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitFor(what: string, predicate: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}
