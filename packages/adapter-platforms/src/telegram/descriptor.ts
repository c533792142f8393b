import { definePlatform } from '../descriptor.ts';
import { createTelegramCredentials } from './credentials.ts';
import { TELEGRAM_OPTIONS_SCHEMA, validateTelegramOptions } from './options.ts';
import { createTelegramPublisher } from './publisher.ts';
import { TELEGRAM_SETTINGS } from './settings.ts';
import { TELEGRAM_MAX_TEXT, telegramLength } from './validate.ts';

/**
 * Telegram: a bot posting to one group or channel, connected by its token and the chat's id (no
 * OAuth). Follow-ups are replies to the message before them; there are no comments to post.
 */
export const telegram = definePlatform({
  name: 'telegram',
  label: 'Telegram',
  media: {},
  contentMaxLength: TELEGRAM_MAX_TEXT,
  contentLength: telegramLength,
  replies: true,
  options: { schema: TELEGRAM_OPTIONS_SCHEMA, validate: validateTelegramOptions },
  settings: TELEGRAM_SETTINGS,
  createPublisher: createTelegramPublisher,
  createCredentials: createTelegramCredentials,
});
