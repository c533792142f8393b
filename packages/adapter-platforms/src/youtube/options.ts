import type { Problem } from '@social-publisher/domain';

export const YOUTUBE_PRIVACY_STATUSES = ['private', 'public', 'unlisted'] as const;
export type YoutubePrivacyStatus = (typeof YOUTUBE_PRIVACY_STATUSES)[number];

/** JSON Schema of `platform_options.youtube` (HTTP schema and OpenAPI). */
export const YOUTUBE_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    privacyStatus: { enum: [...YOUTUBE_PRIVACY_STATUSES], description: 'Default private' },
  },
  additionalProperties: true,
} as const;

/** `platform_options.youtube`: only `privacyStatus` is checked; other keys are the publisher's. */
export function validateYoutubeOptions(value: Record<string, unknown>): Problem[] {
  const privacy = value.privacyStatus;
  if (privacy === undefined || (YOUTUBE_PRIVACY_STATUSES as readonly unknown[]).includes(privacy)) {
    return [];
  }
  return [
    {
      field: 'platform_options.youtube.privacyStatus',
      message: `must be one of ${YOUTUBE_PRIVACY_STATUSES.join(', ')}`,
    },
  ];
}
