import type { Problem } from '@social-publisher/domain';

/** JSON Schema of `platform_options.twitter` (HTTP schema and OpenAPI). */
export const TWITTER_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    replyToTweetId: {
      type: 'string',
      pattern: '^[0-9]{1,19}$',
      description: 'Post as a reply to this post id (the number in its x.com URL)',
    },
  },
  additionalProperties: true,
} as const;

export function validateTwitterOptions(value: Record<string, unknown>): Problem[] {
  const reply = value.replyToTweetId;
  if (reply === undefined || (typeof reply === 'string' && /^[0-9]{1,19}$/.test(reply))) return [];
  return [
    {
      field: 'platform_options.twitter.replyToTweetId',
      message: 'must be a post id: the digits at the end of its x.com URL',
    },
  ];
}
