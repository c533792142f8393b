import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

const OAUTH = oauthSettings('GOOGLE_BUSINESS', {
  auth: 'https://accounts.google.com',
  token: 'https://oauth2.googleapis.com',
  api: 'https://mybusiness.googleapis.com',
});

/**
 * Google splits the Business Profile APIs over three hosts: accounts (Account Management API)
 * and locations (Business Information API) are read at connect, local posts live on the v4 API.
 * Each has its setting, so that tests point all three at a local fake.
 */
export const GOOGLE_BUSINESS_SETTINGS = {
  ...OAUTH,
  apiBaseUrl: { ...OAUTH.apiBaseUrl, description: 'Host of the v4 API (local posts)' },
  accountsBaseUrl: {
    env: 'GOOGLE_BUSINESS_ACCOUNTS_BASE_URL',
    kind: 'url',
    default: 'https://mybusinessaccountmanagement.googleapis.com',
    description: 'Host of the Account Management API (the accounts listed at connect)',
  },
  locationsBaseUrl: {
    env: 'GOOGLE_BUSINESS_LOCATIONS_BASE_URL',
    kind: 'url',
    default: 'https://mybusinessbusinessinformation.googleapis.com',
    description: 'Host of the Business Information API (the locations listed at connect)',
  },
  rateLimit: rateLimitSetting(
    'GOOGLE_BUSINESS',
    '10/1m',
    'Google allows 10 edits per minute per Business Profile (a limit it does not raise); its 429 RESOURCE_EXHAUSTED is honoured',
  ),
} as const;

export type GoogleBusinessSettings = SettingsOf<typeof GOOGLE_BUSINESS_SETTINGS>;
