/**
 * What every scheduled read pass shares (metrics, comments): the connection's read budget on the
 * pacer (never the publishing one), a bounded number of connections read at a time, and the
 * claimed tracks grouped by connection.
 */
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { SocialAccount } from '../model.ts';

/** The pacer key of a connection's reads: beside its publishing key, never the same budget. */
export const readPaceKey = (connection: Pick<SocialAccount, 'id' | 'platform'>): string =>
  `read:${connection.platform}:${connection.id}`;

/**
 * Asks the pacer for one call on the connection's read budget: null to go ahead, or when to
 * come back. A pacer that cannot answer lets the read through (the platform still decides).
 */
export async function paceRead(
  deps: CoreDeps,
  connection: SocialAccount,
  holder: string,
): Promise<Date | null> {
  const limit = deps.pacing?.readLimitOf?.(connection.platform) ?? null;
  if (!deps.pacing || limit === null) return null;
  try {
    const decision = await deps.pacing.pacer.take(
      readPaceKey(connection),
      limit,
      holder,
      deps.clock.now(),
    );
    return decision.ok ? null : decision.retryAt;
  } catch (error) {
    deps.logger.warn({ err: errorMessage(error) }, 'pacer unavailable: reading unpaced');
    return null;
  }
}

/** Tells the pacer the platform asked the connection's reads to wait until `retryAt`. */
export async function observeReadWait(
  deps: CoreDeps,
  connection: SocialAccount,
  retryAt: Date,
): Promise<void> {
  await deps.pacing?.pacer
    .observe(readPaceKey(connection), retryAt, deps.clock.now())
    .catch(() => {});
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/** The tracks of each connection together, in the order first seen. */
export function groupByConnection<T extends { socialAccountId: string }>(
  tracks: readonly T[],
): T[][] {
  const groups = new Map<string, T[]>();
  for (const track of tracks) {
    const group = groups.get(track.socialAccountId);
    if (group) group.push(track);
    else groups.set(track.socialAccountId, [track]);
  }
  return [...groups.values()];
}

/** The connections of the real (not sandbox) tracks, by id. */
export async function connectionsOf(
  deps: CoreDeps,
  groups: readonly (readonly { socialAccountId: string; sandbox: boolean }[])[],
): Promise<Map<string, SocialAccount>> {
  const ids = groups.flatMap((group) =>
    group[0]?.sandbox ? [] : [group[0]?.socialAccountId ?? ''],
  );
  const found = await deps.repos.socialAccounts.findByIds([...new Set(ids)]);
  return new Map(found.map((connection) => [connection.id, connection]));
}

/**
 * Reads claimed tracks connection by connection, at most `metricsReadConcurrency` connections at
 * a time: `readConnection` is handed each group with its connection (null for sandbox tracks or
 * a removed connection). The results come back in the order the groups finished.
 */
export async function readByConnection<T extends { socialAccountId: string; sandbox: boolean }, R>(
  deps: CoreDeps,
  tracks: readonly T[],
  readConnection: (connection: SocialAccount | null, group: readonly T[]) => Promise<R>,
): Promise<R[]> {
  const groups = groupByConnection(tracks);
  const connections = await connectionsOf(deps, groups);
  const results: R[] = [];
  await eachLimited(groups, deps.settings.metricsReadConcurrency, async (group) => {
    const connection = connections.get(group[0]?.socialAccountId ?? '') ?? null;
    results.push(await readConnection(connection, group));
  });
  return results;
}

/** The connection when it can be read (present and active), or why not. */
export function readableConnection(
  connection: SocialAccount | null,
): { ok: true; connection: SocialAccount } | { ok: false; code: string; message: string } {
  if (!connection) {
    return { ok: false, code: 'connection_missing', message: 'the social account was removed' };
  }
  if (connection.status !== 'active') {
    const message = `the social account is ${connection.status}; reconnect it`;
    return { ok: false, code: 'connection_expired', message };
  }
  return { ok: true, connection };
}

/**
 * The connection when it can be read with `scopes`, or why not: `failed` for a removed or
 * inactive connection, `missing_scopes` for one made without what `reading` needs. Unknown
 * scopes (a brought token) are tried: the platform's answer decides.
 */
export function connectionToRead(
  connection: SocialAccount | null,
  scopes: readonly string[] | undefined,
  reading: string,
):
  | { ok: true; connection: SocialAccount }
  | { ok: false; kind: 'failed'; code: string; message: string }
  | { ok: false; kind: 'missing_scopes'; message: string } {
  const readable = readableConnection(connection);
  if (!readable.ok) return { ...readable, kind: 'failed' };
  const missing = missingScopes(readable.connection, scopes);
  if (missing.length === 0) return readable;
  const message = `the connection was made without ${missing.join(', ')}, which ${reading} needs: reconnect the account`;
  return { ok: false, kind: 'missing_scopes', message };
}

/** The scopes of `needed` a connection with known scopes lacks (unknown scopes: none). */
function missingScopes(connection: SocialAccount, needed: readonly string[] | undefined): string[] {
  if (!needed || connection.scopes.length === 0) return [];
  const granted = new Set(connection.scopes);
  return needed.filter((scope) => !granted.has(scope));
}
