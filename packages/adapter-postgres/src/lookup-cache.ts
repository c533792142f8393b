/**
 * The two lookups every create makes (the API key by its hash, the connections by id) kept in
 * memory, for the embedded mode only: there one process owns the database (data-dir-lock.ts),
 * so every change to those rows goes through this process's repositories and the cache can
 * never miss one. PGlite runs statements one at a time on one thread, and these lookups were
 * two of the three statements of every create; PostgreSQL, shared by many processes, is never
 * cached.
 *
 * Correctness rules:
 * - Any write to either repository (insert, delete, revoke, token renewal, last-used, a
 *   lease) empties the cache before it is sent and again when it is done, and a unit of work
 *   empties it when it ends (commit or rollback).
 * - A row read from the database is kept only if no write happened while it was read (a
 *   generation number), so a read that raced a write never stores the old row.
 * - Inside a unit of work nothing is read from or stored to the cache (the transaction may see
 *   rows that never commit); its writes still empty it.
 * - Only rows found are kept (an unknown key hash always asks the database), at most
 *   `maxEntries` of them; callers get copies.
 */
import type {
  ApiKey,
  ApiKeyRepository,
  Repositories,
  SocialAccount,
  SocialAccountRepository,
} from '@social-publisher/domain';

const READ = /^(find|list|count)/;

export interface LookupCache {
  /** The pool's repositories with cached lookups and invalidating writes. */
  cached(repos: Repositories): Repositories;
  /** A transaction's repositories: no cached reads, invalidating writes. */
  invalidating(repos: Repositories): Repositories;
  /** Empties the cache (a unit of work ended; a test wrote rows directly). */
  invalidate(): void;
}

/** The cache of the storage built on a Kysely instance, for test helpers that write rows. */
const byDatabase = new WeakMap<object, LookupCache>();

export function lookupCacheOf(db: object): LookupCache | undefined {
  return byDatabase.get(db);
}

export function createLookupCache(db: object, maxEntries = 10_000): LookupCache {
  const keys = new Map<string, ApiKey>();
  const connections = new Map<string, SocialAccount>();
  let generation = 0;

  const invalidate = (): void => {
    generation += 1;
    keys.clear();
    connections.clear();
  };

  const remember = <T>(map: Map<string, T>, id: string, value: T): void => {
    if (map.size >= maxEntries) map.clear();
    map.set(id, value);
  };

  /** Every method that is not a read empties the cache before and after it runs. */
  function writesInvalidate<R extends object>(repo: R): R {
    const wrapped = { ...repo } as Record<string, unknown>;
    for (const [name, value] of Object.entries(repo)) {
      if (typeof value !== 'function' || READ.test(name)) continue;
      wrapped[name] = async (...args: unknown[]) => {
        invalidate();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
        } finally {
          invalidate();
        }
      };
    }
    return wrapped as R;
  }

  function cachedApiKeys(repo: ApiKeyRepository): ApiKeyRepository {
    return {
      ...writesInvalidate(repo),
      async findByHash(keyHash) {
        const known = keys.get(keyHash);
        if (known) return structuredClone(known);
        const before = generation;
        const found = await repo.findByHash(keyHash);
        if (found && generation === before) remember(keys, keyHash, structuredClone(found));
        return found;
      },
    };
  }

  function cachedConnections(repo: SocialAccountRepository): SocialAccountRepository {
    return {
      ...writesInvalidate(repo),
      async findByIds(ids) {
        const unique = [...new Set(ids)];
        // What the cache holds now: a write while the missing ones are read may empty it.
        const rows = new Map<string, SocialAccount>();
        for (const id of unique) {
          const known = connections.get(id);
          if (known) rows.set(id, known);
        }
        const missing = unique.filter((id) => !rows.has(id));
        if (missing.length > 0) {
          const before = generation;
          const found = await repo.findByIds(missing);
          const current = generation === before;
          for (const row of found) {
            rows.set(row.id, row);
            if (current) remember(connections, row.id, structuredClone(row));
          }
        }
        return unique.flatMap((id) => {
          const row = rows.get(id);
          return row ? [structuredClone(row)] : [];
        });
      },
    };
  }

  const cache: LookupCache = {
    cached: (repos) => ({
      ...repos,
      apiKeys: cachedApiKeys(repos.apiKeys),
      socialAccounts: cachedConnections(repos.socialAccounts),
    }),
    invalidating: (repos) => ({
      ...repos,
      apiKeys: writesInvalidate(repos.apiKeys),
      socialAccounts: writesInvalidate(repos.socialAccounts),
    }),
    invalidate,
  };
  byDatabase.set(db, cache);
  return cache;
}
