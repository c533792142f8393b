import type { Problem } from '../errors.ts';
import { ROLES, type Role } from '../model.ts';
import type { PlatformCatalog } from '../ports/platform.ts';
import { parseIsoInstant } from './iso-time.ts';
import { isKnownPlatform, platformChoices } from './platform-options.ts';
import { charLength, isAbsent, isUuid, typeName } from './shape.ts';

export const MAX_EXTERNAL_ID_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 254;
/** The longest access or refresh token a connection may be given (encrypted at rest). */
export const MAX_TOKEN_LENGTH = 10_000;

/** Body of a new social connection (camelCase in, snake_case field paths out). */
export interface ConnectSocialAccountInput {
  platform?: unknown;
  externalId?: unknown;
  displayName?: unknown;
  accessToken?: unknown;
  refreshToken?: unknown;
  tokenExpiresAt?: unknown;
  /** true: a sandbox connection (no token; never calls the platform). */
  sandbox?: unknown;
  /** The credential fields given, by body field name (a platform connected by credentials). */
  credentials?: Record<string, unknown>;
}

function optionalString(value: unknown, field: string, max: number): Problem[] {
  if (isAbsent(value)) return [];
  if (typeof value !== 'string')
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  return charLength(value) > max ? [{ field, message: `must be at most ${max} characters` }] : [];
}

export function validateConnectInput(
  input: ConnectSocialAccountInput,
  catalog: PlatformCatalog,
): Problem[] {
  const problems: Problem[] = [];
  if (!isKnownPlatform(catalog, input.platform)) {
    problems.push({ field: 'platform', message: platformChoices(catalog) });
  }
  if (!isAbsent(input.sandbox) && typeof input.sandbox !== 'boolean') {
    problems.push({
      field: 'sandbox',
      message: `must be a boolean, got ${typeName(input.sandbox)}`,
    });
  }
  if (input.sandbox === true) return [...problems, ...validateSandboxInput(input)];
  const externalId = input.externalId;
  if (typeof externalId !== 'string' || externalId.trim() === '') {
    problems.push({ field: 'external_id', message: 'is required (a non-empty string)' });
  } else {
    problems.push(...optionalString(externalId, 'external_id', MAX_EXTERNAL_ID_LENGTH));
  }
  if (typeof input.accessToken !== 'string' || input.accessToken === '') {
    problems.push({ field: 'access_token', message: 'is required (a non-empty string)' });
  }
  problems.push(...optionalString(input.displayName, 'display_name', MAX_EXTERNAL_ID_LENGTH));
  problems.push(...optionalString(input.refreshToken, 'refresh_token', MAX_TOKEN_LENGTH));
  const expiresAt = input.tokenExpiresAt;
  if (!isAbsent(expiresAt) && (typeof expiresAt !== 'string' || !parseIsoInstant(expiresAt))) {
    problems.push({
      field: 'token_expires_at',
      message: 'must be an ISO 8601 date-time with a timezone',
    });
  }
  return problems;
}

/** A sandbox connection takes no token: one given is refused rather than silently kept. */
function validateSandboxInput(input: ConnectSocialAccountInput): Problem[] {
  const problems: Problem[] = [];
  for (const [field, value] of [
    ['access_token', input.accessToken],
    ['refresh_token', input.refreshToken],
    ['token_expires_at', input.tokenExpiresAt],
  ] as const) {
    if (!isAbsent(value)) {
      problems.push({ field, message: 'is not taken by a sandbox connection' });
    }
  }
  problems.push(...optionalString(input.externalId, 'external_id', MAX_EXTERNAL_ID_LENGTH));
  problems.push(...optionalString(input.displayName, 'display_name', MAX_EXTERNAL_ID_LENGTH));
  return problems;
}

export function validateEmail(value: unknown): Problem[] {
  if (isAbsent(value)) return [];
  if (
    typeof value !== 'string' ||
    value.length > MAX_EMAIL_LENGTH ||
    !/^[^\s@]+@[^\s@]+$/.test(value.trim())
  ) {
    return [{ field: 'email', message: 'must be an email address' }];
  }
  return [];
}

export function validateMemberInput(input: { userId?: unknown; role?: unknown }): Problem[] {
  const problems: Problem[] = [];
  if (!isUuid(input.userId)) problems.push({ field: 'user_id', message: 'must be a UUID' });
  if (!(ROLES as readonly unknown[]).includes(input.role)) {
    problems.push({ field: 'role', message: `must be one of ${ROLES.join(', ')}` });
  }
  return problems;
}

/**
 * The roles that may create team API keys, and whose keys act. A key acts for its creator: it
 * stops (401) when the creator leaves the team, and (403) while the creator holds another role.
 */
export const TEAM_KEY_ROLES: readonly Role[] = ['owner', 'admin'];

export const mayHoldTeamKeys = (role: Role): boolean => TEAM_KEY_ROLES.includes(role);
