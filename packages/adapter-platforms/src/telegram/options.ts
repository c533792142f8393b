import type { Problem } from '@social-publisher/domain';
import { boolOption } from '../shared/options.ts';

/** JSON Schema of `platform_options.telegram` (HTTP schema and OpenAPI). */
export const TELEGRAM_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    disable_notification: {
      type: 'boolean',
      description:
        "true: the chat's members get the message without a sound (Telegram's silent message), for the main message and its follow-ups. Default false",
    },
  },
  additionalProperties: true,
} as const;

export function validateTelegramOptions(value: Record<string, unknown>): Problem[] {
  const silent = value.disable_notification;
  if (silent === undefined || typeof silent === 'boolean') return [];
  return [
    { field: 'platform_options.telegram.disable_notification', message: 'must be a boolean' },
  ];
}

/** Whether the messages go out silently (already validated). */
export const silentOf = (options: Record<string, unknown>): boolean =>
  boolOption(options, 'disable_notification') === true;
