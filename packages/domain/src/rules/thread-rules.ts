import type { Problem } from '../errors.ts';
import type { PlatformRules } from '../ports/platform.ts';
import { validateContent } from './content.ts';
import { checkMediaUrl, MAX_MEDIA_URLS } from './media.ts';
import { charLength, isAbsent, isRecord, typeName } from './shape.ts';

/** Follow-ups one post may carry (X shows long threads, but a runaway list is a mistake). */
export const MAX_THREAD_PARTS = 25;

type Rules = Pick<PlatformRules, 'name' | 'contentMaxLength' | 'contentLength' | 'replies'>;

/** One text against each target's own limit, counted as that platform counts. */
function platformLengthProblems(text: string, field: string, targets: readonly Rules[]) {
  const problems: Problem[] = [];
  for (const rules of new Set(targets)) {
    const { name, contentMaxLength } = rules;
    const length = rules.contentLength ? rules.contentLength(text) : charLength(text);
    if (contentMaxLength !== undefined && length > contentMaxLength) {
      problems.push({
        field,
        message: `${name} posts are limited to ${contentMaxLength} characters`,
      });
    }
  }
  return problems;
}

/**
 * `thread`: at most 25 follow-ups `{ content, media_urls? }`, each counted against every target
 * platform's limits like the main post; refused for a target platform that cannot reply.
 */
export function validateThread(value: unknown, targets: readonly Rules[]): Problem[] {
  if (isAbsent(value)) return [];
  const field = 'thread';
  if (!Array.isArray(value)) {
    return [
      { field, message: `must be an array of { content, media_urls }, got ${typeName(value)}` },
    ];
  }
  if (value.length === 0) return [];
  const problems: Problem[] = [];
  for (const rules of new Set(targets)) {
    if (!rules.replies) {
      problems.push({ field, message: `is not supported on ${rules.name} (no replies)` });
    }
  }
  if (value.length > MAX_THREAD_PARTS) {
    problems.push({ field, message: `must hold at most ${MAX_THREAD_PARTS} follow-ups` });
  }
  value.slice(0, MAX_THREAD_PARTS).forEach((part, index) => {
    const at = `${field}[${index}]`;
    if (!isRecord(part)) {
      problems.push({
        field: at,
        message: `must be an object { content, media_urls }, got ${typeName(part)}`,
      });
      return;
    }
    const { content, media_urls: media } = part;
    if (typeof content !== 'string' || content.trim() === '') {
      problems.push({ field: `${at}.content`, message: 'is required (a non-empty string)' });
    } else {
      const shared = validateContent(content, `${at}.content`);
      problems.push(...shared, ...platformLengthProblems(content, `${at}.content`, targets));
    }
    if (isAbsent(media)) return;
    if (!Array.isArray(media)) {
      problems.push({
        field: `${at}.media_urls`,
        message: `must be an array of URLs, got ${typeName(media)}`,
      });
      return;
    }
    if (media.length > MAX_MEDIA_URLS) {
      problems.push({
        field: `${at}.media_urls`,
        message: `must hold at most ${MAX_MEDIA_URLS} URLs`,
      });
    }
    media.forEach((url, i) => {
      const problem = checkMediaUrl(url, `${at}.media_urls[${i}]`);
      if (problem) problems.push(problem);
    });
  });
  return problems;
}

/** `first_comment`: a string within each target's limit, on platforms that take comments. */
export function validateFirstComment(
  value: unknown,
  targets: readonly (Rules & Pick<PlatformRules, 'comments'>)[],
): Problem[] {
  if (isAbsent(value)) return [];
  const field = 'first_comment';
  if (typeof value !== 'string') {
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  }
  if (value.trim() === '') return [{ field, message: 'must not be empty when given' }];
  const problems: Problem[] = [];
  for (const rules of new Set(targets)) {
    if (!rules.comments) {
      problems.push({ field, message: `is not supported on ${rules.name}` });
    }
  }
  problems.push(...validateContent(value, field));
  problems.push(...platformLengthProblems(value, field, targets));
  return problems;
}
