import { classifyMedia, isRecord, type Problem, typeName } from '@social-publisher/domain';

export const TIKTOK_PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;
export type TiktokPrivacy = (typeof TIKTOK_PRIVACY_LEVELS)[number];

/** `platform_options.tiktok` once validated (the adapter README maps each to the TikTok API field). */
export interface TiktokOptions {
  tiktokPrivacy?: TiktokPrivacy;
  tiktokIsDraft?: boolean;
  tiktokAllowComments?: boolean;
  tiktokAllowDuet?: boolean;
  tiktokAllowStitch?: boolean;
  tiktokBrandOrganic?: boolean;
  tiktokBrandContent?: boolean;
  tiktokAutoAddMusic?: boolean;
  tiktokIsAigc?: boolean;
}

const BOOLEAN_KEYS = [
  'tiktokIsDraft',
  'tiktokAllowComments',
  'tiktokAllowDuet',
  'tiktokAllowStitch',
  'tiktokBrandOrganic',
  'tiktokBrandContent',
  'tiktokAutoAddMusic',
  'tiktokIsAigc',
] as const;
const KNOWN_KEYS = new Set<string>(['tiktokPrivacy', ...BOOLEAN_KEYS]);
const VIDEO_ONLY_KEYS = ['tiktokAllowDuet', 'tiktokAllowStitch', 'tiktokIsAigc'] as const;
const BASE = 'platform_options.tiktok';

/** JSON Schema of `platform_options.tiktok` (HTTP schema and OpenAPI). */
export const TIKTOK_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    tiktokPrivacy: {
      enum: [...TIKTOK_PRIVACY_LEVELS],
      description: 'Default SELF_ONLY when offered',
    },
    ...Object.fromEntries(BOOLEAN_KEYS.map((key) => [key, { type: 'boolean' }])),
    tiktokAllowDuet: { type: 'boolean', description: 'Videos only' },
    tiktokAllowStitch: { type: 'boolean', description: 'Videos only' },
    tiktokIsAigc: { type: 'boolean', description: 'Videos only' },
  },
  additionalProperties: false,
} as const;

/**
 * Checks `platform_options.tiktok`. Duet, stitch and AIGC labelling exist only for videos, so
 * turning them on for a post whose media are all photos is rejected; `false` is accepted
 * because it is what a photo post does anyway (clients often send one options template).
 */
export function validateTiktokOptions(
  value: unknown,
  mediaUrls: readonly string[] = [],
): Problem[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) {
    return [{ field: BASE, message: `must be an object, got ${typeName(value)}` }];
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ field: `${BASE}.${key}`, message: 'is not a known TikTok option' });
    }
  }
  const privacy = value.tiktokPrivacy;
  if (privacy !== undefined && !(TIKTOK_PRIVACY_LEVELS as readonly unknown[]).includes(privacy)) {
    problems.push({
      field: `${BASE}.tiktokPrivacy`,
      message: `must be one of ${TIKTOK_PRIVACY_LEVELS.join(', ')}`,
    });
  }
  for (const key of BOOLEAN_KEYS) {
    const option = value[key];
    if (option !== undefined && typeof option !== 'boolean') {
      problems.push({
        field: `${BASE}.${key}`,
        message: `must be a boolean, got ${typeName(option)}`,
      });
    }
  }
  const allPhotos =
    mediaUrls.length > 0 && mediaUrls.every((url) => classifyMedia(url) === 'photo');
  if (allPhotos) {
    for (const key of VIDEO_ONLY_KEYS) {
      if (value[key] === true) {
        problems.push({
          field: `${BASE}.${key}`,
          message: 'applies to videos only; the media are photos',
        });
      }
    }
  }
  return problems;
}
