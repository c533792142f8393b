import type { PlatformSetting, SettingsOf } from '../descriptor.ts';
import { rateLimitSetting } from '../shared/rate-limit-setting.ts';

/**
 * Telegram's Bot API: one host for every call (`/bot<token>/<method>`). A self-hosted Bot API
 * server (telegram-bot-api) is its own URL. There is no OAuth app: a connection is a bot token
 * and a chat.
 */
export const TELEGRAM_SETTINGS = {
  apiBaseUrl: {
    env: 'TELEGRAM_API_BASE_URL',
    kind: 'url',
    default: 'https://api.telegram.org',
    description: 'Host of the Bot API (a local Bot API server when self-hosted)',
  } satisfies PlatformSetting,
  rateLimit: rateLimitSetting(
    'TELEGRAM',
    '20/1m',
    'Telegram lets a bot send about 20 messages a minute to one group or channel (a connection is one chat); its 429 retry_after is honoured',
  ),
} as const;

export type TelegramSettings = SettingsOf<typeof TELEGRAM_SETTINGS>;
