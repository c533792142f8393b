import type { CoreDeps } from '../deps.ts';
import type { Problem } from '../errors.ts';
import type { AccountContext, Platform, SocialAccount } from '../model.ts';
import { isKnownPlatform } from '../rules/platform-options.ts';
import type { CreatePostInput } from '../rules/post-rules.ts';
import { isUuid } from '../rules/shape.ts';

/** A connection a new post will go to, and the request field that named it. */
export interface ResolvedTarget {
  connection: SocialAccount;
  field: string;
}

/**
 * Turns `social_account_ids` and `platforms` into active connections of the account,
 * de-duplicated by connection. A foreign id gets the same message as an unknown one.
 */
export async function resolveTargets(
  deps: CoreDeps,
  ctx: Pick<AccountContext, 'accountId'>,
  input: Pick<CreatePostInput, 'social_account_ids' | 'platforms'>,
): Promise<{ targets: ResolvedTarget[]; problems: Problem[] }> {
  const targets: ResolvedTarget[] = [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (connection: SocialAccount, field: string) => {
    if (seen.has(connection.id)) return;
    seen.add(connection.id);
    targets.push({ connection, field });
  };

  const ids: unknown[] = Array.isArray(input.social_account_ids) ? input.social_account_ids : [];
  // One query for every named connection; the checks below run in the order of the request.
  const named = ids.filter(isUuid);
  const found = named.length > 0 ? await deps.repos.socialAccounts.findByIds(named) : [];
  const byId = new Map(found.map((connection) => [connection.id, connection]));
  for (const [index, id] of ids.entries()) {
    if (!isUuid(id) || seen.has(id)) continue;
    const field = `social_account_ids[${index}]`;
    const connection = byId.get(id);
    if (connection?.accountId === ctx.accountId && connection.status === 'active') {
      add(connection, field);
    } else {
      problems.push({ field, message: 'is not an active social account of this account' });
    }
  }

  const platforms: unknown[] = Array.isArray(input.platforms) ? input.platforms : [];
  const seenPlatforms = new Set<Platform>();
  for (const [index, platform] of platforms.entries()) {
    if (!isKnownPlatform(deps.platforms, platform) || seenPlatforms.has(platform)) continue;
    seenPlatforms.add(platform);
    const field = `platforms[${index}]`;
    const connection = await deps.repos.socialAccounts.findActiveByPlatform(
      ctx.accountId,
      platform,
    );
    if (connection) add(connection, field);
    else problems.push({ field, message: `this account has no active ${platform} connection` });
  }
  return { targets, problems };
}
