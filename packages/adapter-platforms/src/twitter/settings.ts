import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';

/** X API v2 with OAuth 2.0 user tokens (PKCE); the platform is named `twitter`, settings `X_`. */
export const TWITTER_SETTINGS = oauthSettings('X', {
  auth: 'https://x.com',
  token: 'https://api.x.com',
  api: 'https://api.x.com',
});

export type TwitterSettings = SettingsOf<typeof TWITTER_SETTINGS>;
