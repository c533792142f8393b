import type { Problem } from '../errors.ts';
import { charLength, typeName } from './shape.ts';

export const MAX_NAME_LENGTH = 100;

/** A display name: a string of 1-100 characters once surrounding whitespace is trimmed. */
export function validateName(value: unknown, field = 'name'): Problem[] {
  if (value === undefined || value === null) return [{ field, message: 'is required' }];
  if (typeof value !== 'string')
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  const length = charLength(value.trim());
  if (length === 0) return [{ field, message: 'must not be empty' }];
  if (length > MAX_NAME_LENGTH) {
    return [{ field, message: `must be at most ${MAX_NAME_LENGTH} characters` }];
  }
  return [];
}

/** API key name (1-100 characters, docs/api.md#api-keys). */
export const validateApiKeyName = (value: unknown): Problem[] => validateName(value, 'name');

/** Workspace (team account) name. */
export const validateWorkspaceName = (value: unknown): Problem[] => validateName(value, 'name');

/** docs/api.md#limits: at most N keys per account; `existing` is the account's current count. */
export function validateApiKeyLimit(existing: number, max: number): Problem[] {
  return existing >= max
    ? [{ field: 'name', message: `an account may hold at most ${max} API keys; revoke one first` }]
    : [];
}
