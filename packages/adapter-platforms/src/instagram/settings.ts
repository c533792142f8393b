import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

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
