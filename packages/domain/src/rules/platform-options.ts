import type { Problem } from '../errors.ts';
import { type Platform, SANDBOX_OUTCOMES } from '../model.ts';
import type { PlatformCatalog, PlatformRules } from '../ports/platform.ts';
import { charLength, isRecord, typeName } from './shape.ts';

/** Whether `value` names a platform of the catalog. */
export function isKnownPlatform(catalog: PlatformCatalog, value: unknown): value is Platform {
  return typeof value === 'string' && catalog.rules(value) !== undefined;
}

/** `must be one of a, b, c` for the catalog's platforms. */
export function platformChoices(catalog: PlatformCatalog): string {
  return `must be one of ${catalog.names.join(', ')}`;
}

/** `platform_options`: an object keyed by platform name, each value that platform's options. */
export function validatePlatformOptions(
  value: unknown,
  mediaUrls: readonly string[],
  catalog: PlatformCatalog,
): Problem[] {
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
    const rules = catalog.rules(key);
    if (!rules) {
      problems.push({ field, message: `is not a known platform (${catalog.names.join(', ')})` });
      continue;
    }
    if (!isRecord(options)) {
      problems.push({ field, message: `must be an object, got ${typeName(options)}` });
      continue;
    }
    const { sandbox_outcome: sandboxOutcome, ...own } = options;
    if (
      sandboxOutcome !== undefined &&
      !(SANDBOX_OUTCOMES as readonly unknown[]).includes(sandboxOutcome)
    ) {
      problems.push({
        field: `${field}.sandbox_outcome`,
        message: `must be one of ${SANDBOX_OUTCOMES.join(', ')} (sandbox connections only)`,
      });
    }
    problems.push(...rules.validateOptions(own, mediaUrls));
  }
  return problems;
}

/** Each target platform's own content limit (the shared limit is checked apart). */
export function validatePlatformContent(
  content: unknown,
  platforms: readonly Pick<PlatformRules, 'name' | 'contentMaxLength' | 'contentLength'>[],
): Problem[] {
  if (typeof content !== 'string') return [];
  const problems: Problem[] = [];
  for (const rules of new Set(platforms)) {
    const { name, contentMaxLength } = rules;
    const length = rules.contentLength ? rules.contentLength(content) : charLength(content);
    if (contentMaxLength !== undefined && length > contentMaxLength) {
      problems.push({
        field: 'content',
        message: `${name} posts are limited to ${contentMaxLength} characters`,
      });
    }
  }
  return problems;
}
