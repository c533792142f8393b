import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

export const FACEBOOK_SETTINGS = {
  ...oauthSettings('FACEBOOK', {
    auth: 'https://www.facebook.com',
    token: 'https://graph.facebook.com',
    api: 'https://graph.facebook.com',
  }),
  rateLimit: rateLimitSetting(
    'FACEBOOK',
    'off',
    "Meta scales a Page's limit with its engagement and publishes no fixed count; its throttle answers are honoured",
  ),
  readRateLimit: readRateLimitSetting(
    'FACEBOOK',
    '200/1h',
    "Meta's Graph API platform rate limit is about 200 calls per hour per user; each post's numbers cost one",
  ),
  graphVersion: {
    env: 'FACEBOOK_GRAPH_VERSION',
    kind: 'string',
    default: 'v21.0',
    pattern: /^v\d+\.\d+$/,
    hint: 'like v21.0',
    description: 'Graph API version (dialog, token and API paths)',
  },
} as const;

export type FacebookSettings = SettingsOf<typeof FACEBOOK_SETTINGS>;
