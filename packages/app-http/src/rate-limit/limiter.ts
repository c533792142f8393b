import type { Config } from '@social-publisher/config';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { HttpError } from '../errors.ts';
import type { RateLimitStore } from './store.ts';

export interface RateLimiter {
  /** Counts one request for `key`; sets the RateLimit headers; throws a 429 past the limit. */
  enforce(key: string, reply: FastifyReply): Promise<void>;
  close(): Promise<void>;
}

/**
 * Per-credential limit of `config.rateLimit.max` requests per window. If the store fails
 * (Redis down) the request is let through and a warning logged: rate limiting must not take
 * the API down with it.
 */
export function createRateLimiter(
  store: RateLimitStore,
  limit: Config['rateLimit'],
  logger: FastifyBaseLogger,
): RateLimiter {
  let lastWarning = 0;
  return {
    async enforce(key, reply) {
      let hit: Awaited<ReturnType<RateLimitStore['hit']>>;
      try {
        hit = await store.hit(key, limit.windowMs);
      } catch (error) {
        if (Date.now() - lastWarning > 10_000) {
          lastWarning = Date.now();
          logger.warn({ err: error }, 'rate limit store unavailable: requests are not limited');
        }
        return;
      }
      const resetSeconds = Math.max(1, Math.ceil(hit.resetInMs / 1000));
      reply.header('X-RateLimit-Limit', String(limit.max));
      reply.header('X-RateLimit-Remaining', String(Math.max(0, limit.max - hit.count)));
      reply.header('X-RateLimit-Reset', String(resetSeconds));
      if (hit.count > limit.max) {
        throw new HttpError(
          429,
          'rate_limited',
          `too many requests: at most ${limit.max} per ${limit.windowMs / 1000} s; retry in ${resetSeconds} s`,
          { headers: { 'Retry-After': String(resetSeconds) } },
        );
      }
    },
    close: () => store.close(),
  };
}
