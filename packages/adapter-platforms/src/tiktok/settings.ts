import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

export const TIKTOK_SETTINGS = {
  ...oauthSettings(
    'TIKTOK',
    {
      auth: 'https://www.tiktok.com',
      token: 'https://open.tiktokapis.com',
      api: 'https://open.tiktokapis.com',
    },
    { clientId: ['TIKTOK_CLIENT_KEY'] },
  ),
  rateLimit: rateLimitSetting(
    'TIKTOK',
    '6/60s',
    'TikTok allows 6 post init calls per minute per user token',
  ),
  readRateLimit: readRateLimitSetting(
    'TIKTOK',
    '600/1m',
    'TikTok allows 600 video queries (20 videos each) per minute per user token',
  ),
  photoProxyUrl: {
    env: 'TIKTOK_PHOTO_PROXY_URL',
    kind: 'url',
    example: 'https://media.example.com/tiktok-proxy',
    description:
      'Photo URLs are sent through this proxy as ?url=<encoded original>, on a domain TikTok verified',
  },
} as const;

export type TiktokSettings = SettingsOf<typeof TIKTOK_SETTINGS>;
