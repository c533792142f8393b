import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

export const PINTEREST_SETTINGS = {
  ...oauthSettings('PINTEREST', {
    auth: 'https://www.pinterest.com',
    token: 'https://api.pinterest.com',
    api: 'https://api.pinterest.com',
  }),
  rateLimit: rateLimitSetting(
    'PINTEREST',
    'off',
    'Pinterest publishes no per-account posting figure (its limits are per app per day on Trial access, per user per minute by category on Standard access); its 429 is honoured',
  ),
  readRateLimit: readRateLimitSetting(
    'PINTEREST',
    '300/1m',
    'Pin analytics (org_analytics) allow 300 calls per minute per user on Standard access (Trial access: 1000 per day per app, set 1000/24h)',
  ),
} as const;

export type PinterestSettings = SettingsOf<typeof PINTEREST_SETTINGS>;
