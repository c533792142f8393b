import type { Problem } from '@social-publisher/domain';

/** JSON Schema of `platform_options.facebook` (HTTP schema and OpenAPI). */
export const FACEBOOK_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    link: {
      type: 'string',
      format: 'uri',
      description: 'A link to share with a text post (Facebook shows its preview)',
    },
  },
  additionalProperties: true,
} as const;

export function validateFacebookOptions(
  value: Record<string, unknown>,
  mediaUrls: readonly string[],
): Problem[] {
  const link = value.link;
  if (link === undefined) return [];
  const field = 'platform_options.facebook.link';
  if (typeof link !== 'string' || !/^https?:\/\/\S+$/.test(link)) {
    return [{ field, message: 'must be an http(s) URL' }];
  }
  if (mediaUrls.length > 0)
    return [{ field, message: 'goes with a text post only, not with media' }];
  return [];
}
