import type { Problem } from '@social-publisher/domain';

export const MASTODON_VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;

/** JSON Schema of `platform_options.mastodon` (HTTP schema and OpenAPI). */
export const MASTODON_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    visibility: {
      type: 'string',
      enum: [...MASTODON_VISIBILITIES],
      description:
        "Who sees the status (and its thread): public, unlisted, private (followers) or direct. Default: the account's own default",
    },
  },
  additionalProperties: true,
} as const;

export function validateMastodonOptions(value: Record<string, unknown>): Problem[] {
  const visibility = value.visibility;
  if (visibility === undefined) return [];
  if (
    typeof visibility === 'string' &&
    (MASTODON_VISIBILITIES as readonly string[]).includes(visibility)
  ) {
    return [];
  }
  return [
    {
      field: 'platform_options.mastodon.visibility',
      message: `must be one of ${MASTODON_VISIBILITIES.join(', ')}`,
    },
  ];
}

/** The visibility asked for, if any (already validated). */
export function visibilityOf(options: Record<string, unknown> | undefined): string | undefined {
  const value = options?.visibility;
  return typeof value === 'string' ? value : undefined;
}
