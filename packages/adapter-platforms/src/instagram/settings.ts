import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

/** Instagram API with Instagram Login: graph.instagram.com serves identity and publishing. */
export const INSTAGRAM_SETTINGS = {
  ...oauthSettings('INSTAGRAM', {
    auth: 'https://www.instagram.com',
    token: 'https://api.instagram.com',
    api: 'https://graph.instagram.com',
  }),
  rateLimit: rateLimitSetting(
    'INSTAGRAM',
    '50/24h',
    'Instagram publishes at most 50 posts per account per rolling 24 hours',
  ),
  readRateLimit: readRateLimitSetting(
    'INSTAGRAM',
    '200/1h',
    "Meta's Graph API platform rate limit is about 200 calls per hour per user; each post's numbers cost one",
  ),
  graphVersion: {
    env: 'INSTAGRAM_GRAPH_VERSION',
    kind: 'string',
    default: 'v21.0',
    pattern: /^v\d+\.\d+$/,
    hint: 'like v21.0',
    description: 'Graph API version',
  },
} as const;

export type InstagramSettings = SettingsOf<typeof INSTAGRAM_SETTINGS>;
