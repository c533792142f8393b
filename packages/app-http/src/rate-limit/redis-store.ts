import { createHash } from 'node:crypto';
import type { RateLimitHit, RateLimitStore } from './store.ts';

/** The part of an ioredis client this store uses. */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/**
 * INCR, and PEXPIRE on the first hit of a window, atomically (a key can never be left without
 * an expiry); returns the count and the time left in the window.
 */
export const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

/** The count and the time left of a window, without counting. */
export const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return { count, redis.call('PTTL', KEYS[1]) }
`;

/** Fixed windows shared by every API process through Redis. */
export function createRedisRateLimitStore(
  client: RedisEvalClient,
  prefix = 'sp:ratelimit:',
): RateLimitStore {
  // Sent by hash on every request (the script text only once per Redis that lacks it).
  const run = (script: string) => {
    const sha = createHash('sha1').update(script).digest('hex');
    return async (key: string, windowMs: number): Promise<RateLimitHit> => {
      const redisKey = `${prefix}${key}`;
      let reply: unknown;
      try {
        reply = await client.evalsha(sha, 1, redisKey, windowMs);
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        reply = await client.eval(script, 1, redisKey, windowMs);
      }
      if (!Array.isArray(reply) || reply.length !== 2) {
        throw new Error('unexpected reply from the rate limit script');
      }
      const count = Number(reply[0]);
      const ttl = Number(reply[1]);
      return { count, resetInMs: Number.isFinite(ttl) && ttl > 0 ? ttl : windowMs };
    };
  };
  return {
    hit: run(HIT_SCRIPT),
    peek: run(PEEK_SCRIPT),
    async close() {
      // A polite QUIT, but never wait long on a Redis that is gone.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(resolve, 1_000);
      });
      await Promise.race([client.quit().catch(() => {}), timeout]);
      clearTimeout(timer);
      client.disconnect();
    },
  };
}
