/**
 * Connecting an account by its credentials (docs/connect.md#connecting-by-credentials): for a
 * platform that declares them (Bluesky's handle and app password), POST /social-accounts takes
 * the fields, the platform trades them for tokens, and the connection is stored like one an
 * OAuth callback made (same row, same encryption, same renewal). The credentials themselves are
 * never stored and never logged.
 */
import type { CoreDeps } from '../deps.ts';
import { type DomainError, type Problem, validationFailed } from '../errors.ts';
import type { AccountContext, Platform, SocialAccount } from '../model.ts';
import type { PlatformCredentials } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import type { ConnectSocialAccountInput } from '../rules/account-rules.ts';
import { charLength, isAbsent, isRecord, typeName } from '../rules/shape.ts';
import { saveIdentitiesWithinQuota } from './connection-identities.ts';

/** Fields of a token connection that a credentials connection gets from its platform instead. */
const TOKEN_FIELDS = [
  ['external_id', 'externalId'],
  ['display_name', 'displayName'],
  ['access_token', 'accessToken'],
  ['refresh_token', 'refreshToken'],
  ['token_expires_at', 'tokenExpiresAt'],
] as const;

/** The credential fields given, checked against what the platform declares. */
function credentialProblems(
  connector: PlatformCredentials,
  input: ConnectSocialAccountInput,
): Problem[] {
  const problems: Problem[] = [];
  const names = connector.fields.map((field) => field.name).join(' and ');
  for (const [field, key] of TOKEN_FIELDS) {
    if (!isAbsent(input[key])) {
      problems.push({
        field,
        message: `is not taken for ${connector.platform}: its accounts connect with ${names}`,
      });
    }
  }
  const given = isRecord(input.credentials) ? input.credentials : {};
  for (const field of connector.fields) {
    const value = given[field.name];
    if (isAbsent(value) || value === '') {
      problems.push({ field: field.name, message: `is required for ${connector.platform}` });
    } else if (typeof value !== 'string') {
      problems.push({ field: field.name, message: `must be a string, got ${typeName(value)}` });
    } else if (charLength(value) > field.maxLength) {
      problems.push({
        field: field.name,
        message: `must be at most ${field.maxLength} characters`,
      });
    }
  }
  const declared = new Set(connector.fields.map((field) => field.name));
  for (const [name, value] of Object.entries(given)) {
    if (!declared.has(name) && !isAbsent(value)) {
      problems.push({ field: name, message: `is not taken for ${connector.platform}` });
    }
  }
  return problems;
}

/**
 * Credential fields sent for a platform that takes none, or with a sandbox connection: refused
 * rather than ignored (a client that sends a password expects it to be used).
 */
export function unwantedCredentials(input: ConnectSocialAccountInput, why: string): Problem[] {
  const given = isRecord(input.credentials) ? input.credentials : {};
  return Object.entries(given)
    .filter(([, value]) => !isAbsent(value))
    .map(([field]) => ({ field, message: `is not taken ${why}` }));
}

/** POST /social-accounts for a credentials platform (not a sandbox connection). */
export async function connectWithCredentials(
  deps: CoreDeps,
  ctx: AccountContext,
  connector: PlatformCredentials,
  input: ConnectSocialAccountInput,
  signal?: AbortSignal,
): Promise<Result<SocialAccount, DomainError>> {
  const problems = credentialProblems(connector, input);
  if (problems.length > 0) return err(validationFailed(problems));
  const given = input.credentials as Record<string, string>;
  const fields = Object.fromEntries(
    connector.fields.map((field) => [field.name, given[field.name] ?? '']),
  );
  const platform: Platform = connector.platform;
  const outcome = await connector.connect(fields, signal);
  if (!outcome.ok) {
    const { code, message, transient } = outcome.error;
    return err({
      code: transient ? 'platform_unavailable' : 'platform_auth_failed',
      message: `${platform} ${transient ? 'could not be reached' : 'refused the credentials'} (${code}): ${message}`,
    });
  }
  const saved = await saveIdentitiesWithinQuota(deps, { accountId: ctx.accountId, platform }, [
    outcome.identity,
  ]);
  if (!saved.ok) return saved;
  const [connection] = saved.value;
  if (!connection) throw new Error('saving one identity gave no connection');
  deps.logger.info(
    { platform, accountId: ctx.accountId, connection: connection.id },
    'account connected by credentials',
  );
  return ok(connection);
}
