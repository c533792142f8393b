import { RATE_LIMIT_PATTERN } from '@social-publisher/domain';
import type { PlatformSetting } from '../descriptor.ts';

/**
 * `<PREFIX>_RATE_LIMIT`: the platform's limit on one connection's counted calls, paced ahead by
 * the workers (the platform's own refusals are honoured either way). `published` is the
 * platform's documented default, `off` where it publishes no per-connection figure.
 */
export const rateLimitSetting = (
  prefix: string,
  published: string,
  what: string,
): PlatformSetting => ({
  env: `${prefix}_RATE_LIMIT`,
  kind: 'string',
  default: published,
  pattern: RATE_LIMIT_PATTERN,
  hint: 'like 6/60s or 100/15m (<count>/<window>, window in ms, s, m, h or d), or off',
  description: `Pacing per connection, <count>/<window> or off: ${what}`,
});

/**
 * `<PREFIX>_READ_RATE_LIMIT`: the budget of one connection's reads of its posts' numbers, paced
 * apart from publishing's (a backlog of reads never spends what a post needs). `published` is
 * the platform's documented read limit.
 */
export const readRateLimitSetting = (
  prefix: string,
  published: string,
  what: string,
): PlatformSetting => ({
  env: `${prefix}_READ_RATE_LIMIT`,
  kind: 'string',
  default: published,
  pattern: RATE_LIMIT_PATTERN,
  hint: 'like 900/15m (<count>/<window>, window in ms, s, m, h or d), or off',
  description: `Pacing of metric reads per connection, <count>/<window> or off: ${what}`,
});
