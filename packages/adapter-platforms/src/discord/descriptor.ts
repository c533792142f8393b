import { definePlatform } from '../descriptor.ts';
import { createDiscordCredentials } from './credentials.ts';
import { DISCORD_OPTIONS_SCHEMA, validateDiscordOptions } from './options.ts';
import { createDiscordPublisher } from './publisher.ts';
import { DISCORD_SETTINGS } from './settings.ts';
import { DISCORD_MAX_CONTENT } from './validate.ts';

/**
 * Discord: a channel webhook, connected by its URL (no OAuth, no bot). Follow-ups are further
 * messages in the channel (a webhook cannot reply); there are no comments to post.
 */
export const discord = definePlatform({
  name: 'discord',
  label: 'Discord',
  media: {},
  contentMaxLength: DISCORD_MAX_CONTENT,
  replies: true,
  options: { schema: DISCORD_OPTIONS_SCHEMA, validate: validateDiscordOptions },
  settings: DISCORD_SETTINGS,
  createPublisher: createDiscordPublisher,
  createCredentials: createDiscordCredentials,
});
