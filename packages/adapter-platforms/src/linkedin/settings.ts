import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting, readRateLimitSetting } from '../shared/rate-limit-setting.ts';

export const LINKEDIN_SETTINGS = {
  ...oauthSettings('LINKEDIN', {
    auth: 'https://www.linkedin.com',
    token: 'https://www.linkedin.com',
    api: 'https://api.linkedin.com',
  }),
  rateLimit: rateLimitSetting(
    'LINKEDIN',
    '150/24h',
    'LinkedIn allows 150 member posts a day (app limits show in its developer portal)',
  ),
  readRateLimit: readRateLimitSetting(
    'LINKEDIN',
    'off',
    'LinkedIn publishes no read figures (its per-member and per-app daily limits, reset at midnight UTC, show in its developer portal); its 429 is honoured',
  ),
  apiVersion: {
    env: 'LINKEDIN_API_VERSION',
    kind: 'string',
    default: '202510',
    pattern: /^\d{6}$/,
    hint: 'like 202510 (YYYYMM)',
    description: 'LinkedIn-Version header (versions are retired on a schedule)',
  },
  organizations: {
    env: 'LINKEDIN_ORGANIZATIONS',
    kind: 'string',
    default: 'true',
    pattern: /^(true|false)$/,
    hint: 'true or false',
    description:
      'Ask for the organization scopes (Community Management API) and connect the organizations the member administers; false for apps without that product',
  },
} as const;

export type LinkedinSettings = SettingsOf<typeof LINKEDIN_SETTINGS>;
