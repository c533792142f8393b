/**
 * Budgets for attempts that could be guesses, per client address (request.ip, through
 * TRUST_PROXY's proxies) and per kind: failed API-key/JWT authentications, OAuth callbacks,
 * wrong METRICS_TOKEN and wrong ADMIN_TOKEN attempts each count in their own window, so a flood
 * of one kind never spends another's budget (nor a credential's request budget).
 */
import type { Config } from '@social-publisher/config';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../errors.ts';
import type { RateLimitStore } from './store.ts';

export const ATTEMPT_KINDS = {
  auth_failure: { budget: 'authFailures', what: 'failed authentications' },
  oauth_callback: { budget: 'oauthCallbacks', what: 'OAuth callbacks' },
  metrics_token: { budget: 'tokenFailures', what: 'wrong METRICS_TOKEN attempts' },
  admin_token: { budget: 'tokenFailures', what: 'wrong ADMIN_TOKEN attempts' },
} as const satisfies Record<string, { budget: keyof Config['attemptLimits']; what: string }>;

export type AttemptKind = keyof typeof ATTEMPT_KINDS;

/** One kind's budget. Both throw the 429 (rate_limited, Retry-After) to answer with. */
export interface AttemptBudget {
  /** Counts one attempt from `ip`; throws once the budget is past. */
  count(ip: string): Promise<void>;
  /**
   * Throws if `ip` has spent the budget already, counting nothing: asked before a shared
   * secret is compared, so that a right guess made after the budget is spent is not told apart.
   */
  refuseIfSpent(ip: string): Promise<void>;
}

export interface AttemptLimiter {
  of(kind: AttemptKind): AttemptBudget;
}

/**
 * Budgets of `limits` per `windowMs`. If the store fails (Redis down) the attempt is let
 * through and a warning logged, as the request limiter does: limits must not take the API down.
 */
export function createAttemptLimiter(
  store: RateLimitStore,
  limits: Config['attemptLimits'],
  windowMs: number,
  logger: FastifyBaseLogger,
): AttemptLimiter {
  let lastWarning = 0;
  const ask = async (
    read: () => Promise<{ count: number; resetInMs: number }>,
  ): Promise<{ count: number; resetInMs: number } | null> => {
    try {
      return await read();
    } catch (error) {
      if (Date.now() - lastWarning > 10_000) {
        lastWarning = Date.now();
        logger.warn({ err: error }, 'rate limit store unavailable: attempts are not limited');
      }
      return null;
    }
  };
  return {
    of(kind) {
      const { budget, what } = ATTEMPT_KINDS[kind];
      const max = limits[budget];
      const key = (ip: string) => `attempts:${kind}:${ip}`;
      const refuse = (resetInMs: number): HttpError => {
        const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
        return new HttpError(
          429,
          'rate_limited',
          `too many ${what} from your address: at most ${max} per ${windowMs / 1000} s; retry in ${seconds} s`,
          { headers: { 'Retry-After': String(seconds) } },
        );
      };
      return {
        async count(ip) {
          const hit = await ask(() => store.hit(key(ip), windowMs));
          if (hit && hit.count > max) throw refuse(hit.resetInMs);
        },
        async refuseIfSpent(ip) {
          const seen = await ask(() => store.peek(key(ip), windowMs));
          if (seen && seen.count >= max) throw refuse(seen.resetInMs);
        },
      };
    },
  };
}
