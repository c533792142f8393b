import type { Problem } from '../errors.ts';
import { charLength, isAbsent, typeName } from './shape.ts';

export const MAX_CONTENT_LENGTH = 5000;

/** A post's text (the content, a follow-up, a comment): a string within the shared limit. */
export function validateContent(value: unknown, field = 'content'): Problem[] {
  if (isAbsent(value)) return [];
  if (typeof value !== 'string') {
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  }
  if (charLength(value) > MAX_CONTENT_LENGTH) {
    return [{ field, message: `must be at most ${MAX_CONTENT_LENGTH} characters` }];
  }
  return [];
}
