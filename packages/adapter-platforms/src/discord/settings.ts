import type { PlatformSetting, SettingsOf } from '../descriptor.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

/**
 * Discord: a connection is one channel webhook, called at
 * `<DISCORD_API_BASE_URL>/api/webhooks/<id>/<token>`. There is no OAuth app.
 */
export const DISCORD_SETTINGS = {
  apiBaseUrl: {
    env: 'DISCORD_API_BASE_URL',
    kind: 'url',
    default: 'https://discord.com',
    description:
      'Host of the API the webhooks are called on (webhook URLs given on discord.com are called here)',
  } satisfies PlatformSetting,
  rateLimit: rateLimitSetting(
    'DISCORD',
    '5/2s',
    'Discord lets a webhook execute about 5 times every 2 seconds; its 429 retry_after is honoured',
  ),
} as const;

export type DiscordSettings = SettingsOf<typeof DISCORD_SETTINGS>;
