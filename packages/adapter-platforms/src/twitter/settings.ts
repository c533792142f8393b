import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

/** X API v2 with OAuth 2.0 user tokens (PKCE); the platform is named `twitter`, settings `X_`. */
export const TWITTER_SETTINGS = {
  ...oauthSettings('X', {
    auth: 'https://x.com',
    token: 'https://api.x.com',
    api: 'https://api.x.com',
  }),
  rateLimit: rateLimitSetting(
    'X',
    '100/15m',
    'X allows 100 posts per 15 minutes per user (plans differ)',
  ),
  readRateLimit: readRateLimitSetting(
    'X',
    '900/15m',
    'X allows 900 post lookups (GET /2/tweets, 100 posts each) per 15 minutes per user (plans differ)',
  ),
} as const;

export type TwitterSettings = SettingsOf<typeof TWITTER_SETTINGS>;
