import type { SettingsOf } from '../descriptor.ts';
import { oauthSettings } from '../shared/oauth-settings.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

const { clientId, clientSecret, authBaseUrl, apiBaseUrl } = oauthSettings('REDDIT', {
  auth: 'https://www.reddit.com',
  // Reddit has no token host of its own: the token endpoint is on the consent host.
  token: 'https://www.reddit.com',
  api: 'https://oauth.reddit.com',
});

export const REDDIT_SETTINGS = {
  clientId,
  clientSecret,
  authBaseUrl: {
    ...authBaseUrl,
    description: 'Host of the consent page and of the token endpoint (code exchange, refresh)',
  },
  apiBaseUrl,
  userAgent: {
    env: 'REDDIT_USER_AGENT',
    kind: 'string',
    default: 'server:social-publisher:1.0 (self-hosted)',
    description:
      'User-Agent of every call to Reddit, which refuses generic ones; Reddit asks for <platform>:<app id>:<version> (by /u/<your username>)',
  },
  rateLimit: rateLimitSetting(
    'REDDIT',
    '100/1m',
    "Reddit allows 100 requests per minute per OAuth client; this paces each connection's submissions, and Reddit's 429 (X-Ratelimit-Reset) is honoured for the rest",
  ),
} as const;

export type RedditSettings = SettingsOf<typeof REDDIT_SETTINGS>;
