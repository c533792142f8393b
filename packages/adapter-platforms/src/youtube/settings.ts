import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

export const YOUTUBE_SETTINGS = {
  ...oauthSettings(
    'YOUTUBE',
    {
      auth: 'https://accounts.google.com',
      token: 'https://oauth2.googleapis.com',
      api: 'https://www.googleapis.com',
    },
    { tokenBaseUrl: ['YOUTUBE_OAUTH_BASE_URL'] },
  ),
  rateLimit: rateLimitSetting(
    'YOUTUBE',
    'off',
    "YouTube's quota (10,000 units a day, 1,600 per upload) is per Google Cloud project, not per channel",
  ),
  readRateLimit: readRateLimitSetting(
    'YOUTUBE',
    '50/1h',
    "YouTube's quota is per project (10,000 units a day); a read of up to 50 videos costs 1, so 50 an hour per channel (1,200 units a day at most) leaves the rest to uploads",
  ),
} as const;

export type YoutubeSettings = SettingsOf<typeof YOUTUBE_SETTINGS>;
