import type { Problem } from '@social-publisher/domain';
import { stringOption } from '../shared/options.ts';

/** Discord's rule for a webhook's display name: 1 to 80 characters. */
export const DISCORD_MAX_USERNAME = 80;
/** Names Discord refuses in a webhook's display name (any case). */
const REFUSED_NAMES = ['discord', 'clyde'];

/** JSON Schema of `platform_options.discord` (HTTP schema and OpenAPI). */
export const DISCORD_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    username: {
      type: 'string',
      minLength: 1,
      maxLength: DISCORD_MAX_USERNAME,
      description:
        "The name the messages are posted under, instead of the webhook's own (1-80 characters, without 'discord' or 'clyde')",
    },
  },
  additionalProperties: true,
} as const;

export function validateDiscordOptions(value: Record<string, unknown>): Problem[] {
  const username = value.username;
  if (username === undefined) return [];
  const field = 'platform_options.discord.username';
  if (typeof username !== 'string' || username.trim() === '') {
    return [{ field, message: 'must be a non-empty string' }];
  }
  if (Array.from(username).length > DISCORD_MAX_USERNAME) {
    return [{ field, message: `must be at most ${DISCORD_MAX_USERNAME} characters` }];
  }
  const lower = username.toLowerCase();
  const named = REFUSED_NAMES.find((name) => lower.includes(name));
  return named ? [{ field, message: `must not contain "${named}" (Discord refuses it)` }] : [];
}

/** The name asked for, if any (already validated). */
export const usernameOf = (options: Record<string, unknown>): string | undefined =>
  stringOption(options, 'username');
