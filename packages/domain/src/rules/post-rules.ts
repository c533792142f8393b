import type { Problem } from '../errors.ts';
import type { Platform } from '../model.ts';
import type { PlatformCatalog, PlatformRules } from '../ports/platform.ts';
import { validateContent } from './content.ts';
import { parseIsoInstant } from './iso-time.ts';
import { mediaUrlsOf, validateMediaUrls, validatePlatformMedia } from './media.ts';
import {
  isKnownPlatform,
  platformChoices,
  validatePlatformContent,
  validatePlatformOptions,
} from './platform-options.ts';
import { isAbsent, isUuid, typeName } from './shape.ts';
import { validateStorableText } from './storable-text.ts';
import { validateFirstComment, validateThread } from './thread-rules.ts';

// Where they were first defined: callers import them from here.
export { MAX_CONTENT_LENGTH, validateContent } from './content.ts';

/** The most connections (or platforms) one post may target. */
export const MAX_TARGETS = 50;
/** `POST /posts` publishes now, `POST /posts/schedule` later. */
export type PostMode = 'now' | 'scheduled';

/**
 * The request body of both post routes, snake_case as sent. Values are `unknown` because the
 * rules must hold (and never crash) whatever the HTTP schema let through.
 */
export interface CreatePostInput {
  content?: unknown;
  social_account_ids?: unknown;
  platforms?: unknown;
  media_urls?: unknown;
  platform_options?: unknown;
  thread?: unknown;
  first_comment?: unknown;
  scheduled_at?: unknown;
}

function validateIdList(value: unknown, problems: Problem[]): boolean {
  if (isAbsent(value)) return false;
  if (!Array.isArray(value)) {
    problems.push({
      field: 'social_account_ids',
      message: `must be an array of UUIDs, got ${typeName(value)}`,
    });
    return false;
  }
  value.forEach((id, index) => {
    if (!isUuid(id))
      problems.push({ field: `social_account_ids[${index}]`, message: 'must be a UUID' });
  });
  return value.length > 0;
}

function validatePlatformList(
  value: unknown,
  catalog: PlatformCatalog,
  problems: Problem[],
): boolean {
  if (isAbsent(value)) return false;
  if (!Array.isArray(value)) {
    problems.push({
      field: 'platforms',
      message: `must be an array of platform names, got ${typeName(value)}`,
    });
    return false;
  }
  value.forEach((name, index) => {
    if (!isKnownPlatform(catalog, name)) {
      problems.push({ field: `platforms[${index}]`, message: platformChoices(catalog) });
    }
  });
  return value.length > 0;
}

/** At least one target: `social_account_ids` (preferred) or `platforms` (legacy), or both. */
export function validateTargets(
  input: Pick<CreatePostInput, 'social_account_ids' | 'platforms'>,
  catalog: PlatformCatalog,
): Problem[] {
  const problems: Problem[] = [];
  const hasIds = validateIdList(input.social_account_ids, problems);
  const hasPlatforms = validatePlatformList(input.platforms, catalog, problems);
  if (!hasIds && !hasPlatforms && problems.length === 0) {
    problems.push({
      field: 'social_account_ids',
      message: 'at least one target is required: give social_account_ids or platforms',
    });
  }
  return problems;
}

/** Required and strictly in the future for a scheduled post; not allowed on an immediate one. */
export function validateScheduledAt(value: unknown, mode: PostMode, now: Date): Problem[] {
  const field = 'scheduled_at';
  if (mode === 'now') {
    return isAbsent(value)
      ? []
      : [{ field, message: 'is not allowed when publishing now; use POST /posts/schedule' }];
  }
  if (isAbsent(value)) return [{ field, message: 'is required' }];
  if (typeof value !== 'string') {
    return [{ field, message: `must be an ISO 8601 string, got ${typeName(value)}` }];
  }
  const at = parseIsoInstant(value);
  if (!at) {
    return [
      {
        field,
        message: 'must be an ISO 8601 date-time with a timezone, e.g. 2030-01-31T09:30:00Z',
      },
    ];
  }
  if (at.getTime() <= now.getTime()) return [{ field, message: 'must be in the future' }];
  return [];
}

/** The valid, de-duplicated entries of a `platforms` value. */
export function platformsOf(value: unknown, catalog: PlatformCatalog): Platform[] {
  return Array.isArray(value)
    ? [...new Set(value.filter((name) => isKnownPlatform(catalog, name)))]
    : [];
}

export interface CreatePostRuleContext {
  mode: PostMode;
  now: Date;
  /** The platforms this deployment serves and their rules. */
  platforms: PlatformCatalog;
  /**
   * The platforms the post will go to once `social_account_ids` are resolved. Defaults to the
   * valid entries of `platforms`, which is all that is known before looking connections up.
   */
  targetPlatforms?: readonly Platform[];
}

/** Every shared rule of a new post, all problems at once. */
export function validateCreatePost(
  input: CreatePostInput,
  context: CreatePostRuleContext,
): Problem[] {
  const catalog = context.platforms;
  const media = mediaUrlsOf(input.media_urls);
  const targets = (context.targetPlatforms ?? platformsOf(input.platforms, catalog))
    .map((name) => catalog.rules(name))
    .filter((rules): rules is PlatformRules => rules !== undefined);
  return [
    ...validateContent(input.content),
    ...validatePlatformContent(input.content, targets),
    ...validateTargets(input, catalog),
    ...validateMediaUrls(input.media_urls),
    ...validatePlatformMedia(targets, media),
    ...validatePlatformOptions(input.platform_options, media, catalog),
    ...validateThread(input.thread, targets),
    ...validateFirstComment(input.first_comment, targets),
    ...validateScheduledAt(input.scheduled_at, context.mode, context.now),
    ...validateStorableText(input),
  ];
}
