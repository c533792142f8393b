import type { SettingsOf } from '../descriptor.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

/**
 * Mastodon has no central host: every instance is its own OAuth provider and API, given by the
 * user when connecting (`instance`), and our app is registered on each one on first use. So
 * there is no client id, secret or base URL to configure, only how the app introduces itself.
 */
export const MASTODON_SETTINGS = {
  clientName: {
    env: 'MASTODON_CLIENT_NAME',
    kind: 'string',
    default: 'Social Publisher',
    description:
      'The app name registered on each Mastodon instance (shown on the consent page and under posts)',
  },
  website: {
    env: 'MASTODON_WEBSITE',
    kind: 'url',
    description: 'The website registered with the app on each Mastodon instance (optional)',
    example: 'https://publisher.example.com',
  },
  rateLimit: rateLimitSetting(
    'MASTODON',
    '300/3h',
    'Mastodon allows 300 statuses per 3 hours per account (and 300 API calls per 5 minutes)',
  ),
  readRateLimit: readRateLimitSetting(
    'MASTODON',
    '300/5m',
    'Mastodon allows an account 300 API calls per 5 minutes; a status is read in one call (two when the token may not read statuses)',
  ),
} as const;

export type MastodonSettings = SettingsOf<typeof MASTODON_SETTINGS>;
