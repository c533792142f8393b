import type { PlatformSetting, SettingsOf } from '../descriptor.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

/**
 * Bluesky (AT Protocol): one service URL for the session and the repository calls. Accounts
 * hosted on bsky.social are served there (it forwards to their PDS); a self-hosted PDS is its
 * own URL.
 */
export const BLUESKY_SETTINGS = {
  serviceUrl: {
    env: 'BLUESKY_SERVICE_URL',
    kind: 'url',
    default: 'https://bsky.social',
    description:
      'The AT Protocol service accounts sign in to (createSession) and post through (your PDS when self-hosted)',
  } satisfies PlatformSetting,
  rateLimit: rateLimitSetting(
    'BLUESKY',
    '1666/1h',
    'Bluesky allows an account 5,000 write points per hour, a created record costing 3 (1,666 creates); a thread is paced as one post, Bluesky refuses the excess with 429',
  ),
  readRateLimit: readRateLimitSetting(
    'BLUESKY',
    '3000/5m',
    'Bluesky allows 3,000 API calls per 5 minutes (getPosts reads 25 posts a call)',
  ),
} as const;

export type BlueskySettings = SettingsOf<typeof BLUESKY_SETTINGS>;
