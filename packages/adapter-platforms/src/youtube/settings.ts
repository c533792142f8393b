import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';

export const YOUTUBE_SETTINGS = oauthSettings(
  'YOUTUBE',
  {
    auth: 'https://accounts.google.com',
    token: 'https://oauth2.googleapis.com',
    api: 'https://www.googleapis.com',
  },
  { tokenBaseUrl: ['YOUTUBE_OAUTH_BASE_URL'] },
);

export type YoutubeSettings = SettingsOf<typeof YOUTUBE_SETTINGS>;
