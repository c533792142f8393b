import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

/**
 * Threads API (Meta): consent on threads.net; the code exchange, the long-lived exchange and the
 * refresh on graph.threads.net's unversioned token paths; identity and publishing under /v1.0.
 */
export const THREADS_SETTINGS = {
  ...oauthSettings('THREADS', {
    auth: 'https://threads.net',
    token: 'https://graph.threads.net',
    api: 'https://graph.threads.net',
  }),
  rateLimit: rateLimitSetting(
    'THREADS',
    '250/24h',
    'Threads publishes at most 250 posts per profile per rolling 24 hours (threads_publishing_limit)',
  ),
  readRateLimit: readRateLimitSetting(
    'THREADS',
    '200/1h',
    "Meta's Graph API platform rate limit is about 200 calls per hour per user; each post's numbers cost one",
  ),
} as const;

export type ThreadsSettings = SettingsOf<typeof THREADS_SETTINGS>;
