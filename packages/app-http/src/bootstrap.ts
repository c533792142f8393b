/**
 * First-start bootstrap: BOOTSTRAP_API_KEY ensures a user owning exactly that key; otherwise,
 * on an empty database, a first user is created and its API key printed once.
 */
import { type CoreDeps, countUsers, createUser, ensureUserWithKey } from '@social-publisher/domain';

export type BootstrapOutcome =
  | { kind: 'ensured'; userId: string; created: boolean }
  | { kind: 'first-user'; userId: string; rawKey: string }
  | { kind: 'none' };

export async function bootstrap(
  deps: CoreDeps,
  bootstrapApiKey: string | null,
): Promise<BootstrapOutcome> {
  if (bootstrapApiKey) {
    const { userId, created } = await ensureUserWithKey(deps, bootstrapApiKey);
    return { kind: 'ensured', userId, created };
  }
  if ((await countUsers(deps)) > 0) return { kind: 'none' };
  const result = await createUser(deps, {});
  if (!result.ok) throw new Error(`could not create the first user: ${result.error.message}`);
  return { kind: 'first-user', userId: result.value.user.id, rawKey: result.value.rawKey };
}

/** The banner shown once with the first user's key (plain text, not a log line). */
export function firstUserBanner(rawKey: string, baseUrl: string): string {
  return [
    '',
    '================================================================================',
    ' Social Publisher: first start. A user and its API key were created.',
    ' This key is shown ONLY NOW; the service keeps just its hash:',
    '',
    `   ${rawKey}`,
    '',
    ' Try it:',
    `   curl -H "Authorization: Bearer ${rawKey}" ${baseUrl}/posts`,
    '',
    ` API docs: ${baseUrl}/docs`,
    '================================================================================',
    '',
  ].join('\n');
}
