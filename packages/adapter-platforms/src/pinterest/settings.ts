import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

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
} as const;

export type PinterestSettings = SettingsOf<typeof PINTEREST_SETTINGS>;
