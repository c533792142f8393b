import type { Problem } from '../errors.ts';
import { isPlatform, PLATFORMS } from '../model.ts';
import { isRecord, typeName } from './shape.ts';
import { validateTiktokOptions } from './tiktok-options.ts';

export const YOUTUBE_PRIVACY_STATUSES = ['private', 'public', 'unlisted'] as const;
export type YoutubePrivacyStatus = (typeof YOUTUBE_PRIVACY_STATUSES)[number];

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

/** `platform_options`: an object keyed by platform name, each value an object of options. */
export function validatePlatformOptions(value: unknown, mediaUrls: readonly string[]): Problem[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) {
    return [
      {
        field: 'platform_options',
        message: `must be an object keyed by platform name, got ${typeName(value)}`,
      },
    ];
  }
  const problems: Problem[] = [];
  for (const [key, options] of Object.entries(value)) {
    const field = `platform_options.${key}`;
    if (!isPlatform(key)) {
      problems.push({ field, message: `is not a known platform (${PLATFORMS.join(', ')})` });
      continue;
    }
    if (!isRecord(options)) {
      problems.push({ field, message: `must be an object, got ${typeName(options)}` });
      continue;
    }
    if (key === 'tiktok') problems.push(...validateTiktokOptions(options, mediaUrls));
    if (key === 'youtube') problems.push(...validateYoutubeOptions(options));
  }
  return problems;
}
