/**
 * The three lookups every create makes (the API key by its hash, the connections by id, the
 * account's webhooks subscribed to `post.created`) kept in memory.
 *
 * - Embedded mode: one process owns the database (data-dir-lock.ts), so every change to those
 *   rows goes through this process's repositories and the cache can never miss one.
 * - PostgreSQL: other processes (workers, other API instances, the CLI) change them too. A
 *   trigger on each table sends a change notice (NOTIFY) with every committing write, and
 *   lookup-listener.ts empties this cache when one arrives. The cache is used only while the
 *   listener is known to hear notices (`trust`); otherwise every lookup asks the database.
 *
 * Correctness rules:
 * - Any write to either repository (insert, delete, revoke, token renewal, a lease) empties
 *   the cache before it is sent and again when it is done, and a unit of work empties it when
 *   it ends (commit or rollback). A key's last-used time, written once a minute per key in use,
 *   only updates that key's cached row; a webhook's failure streak (`noteAttempt`, written by
 *   delivery attempts) empties nothing: choosing an event's receivers does not read it.
 * - A row read from the database is kept only if nothing emptied the cache while it was read
 *   (a generation number): a read that raced a write, a change notice, or a change of trust
 *   never stores the old row.
 * - Inside a unit of work nothing is read from or stored to the cache (the transaction may see
 *   rows that never commit); its writes still empty it.
 * - Only rows found are kept (an unknown key hash always asks the database), at most
 *   `maxEntries` of them; callers get copies.
 * - Memberships are never kept: a team key acts only while its creator is a member, and a
 *   removal must stop it at once in every process, not when a notice arrives.
 */
import type {
  ApiKey,
  ApiKeyRepository,
  Repositories,
  SocialAccount,
  SocialAccountRepository,
  Webhook,
  WebhookRepository,
} from '@social-publisher/domain';

const READ = /^(find|list|count)/;

/**
 * A copy for a caller (or for the cache), so nobody changes another's row. The rows are flat
 * (strings, numbers, Dates, arrays of strings): a spread plus a copy of each object field is
 * several times faster than structuredClone (which was ~6 % of the API's CPU per create) or a
 * rebuild through Object.entries. Anything else is cloned.
 */
function copyRow<T extends object>(row: T): T {
  const copy = { ...row } as Record<string, unknown>;
  for (const name in copy) {
    const value = copy[name];
    if (value === null || typeof value !== 'object') continue;
    if (value instanceof Date) copy[name] = new Date(value.getTime());
    else if (Array.isArray(value) && value.every((item) => typeof item !== 'object')) {
      copy[name] = value.slice();
    } else copy[name] = structuredClone(value);
  }
  return copy as T;
}

export interface LookupCache {
  /** The pool's repositories with cached lookups and invalidating writes. */
  cached(repos: Repositories): Repositories;
  /** A transaction's repositories: no cached reads, invalidating writes. */
  invalidating(repos: Repositories): Repositories;
  /** Empties the cache (a unit of work ended; a change notice came; a test wrote rows). */
  invalidate(): void;
  /**
   * Whether lookups may be answered from memory (true at first). While false, every lookup asks
   * the database and nothing is kept; each change empties the cache.
   */
  trust(trusted: boolean): void;
  readonly trusted: boolean;
}

/** The cache of the storage built on a Kysely instance, for test helpers that write rows. */
const byDatabase = new WeakMap<object, LookupCache>();

export function lookupCacheOf(db: object): LookupCache | undefined {
  return byDatabase.get(db);
}

/** Most rows of each kind kept; past it the cache starts again empty. */
const MAX_ENTRIES = 10_000;

export function createLookupCache(db: object): LookupCache {
  const keys = new Map<string, ApiKey>();
  const connections = new Map<string, SocialAccount>();
  /** Active webhooks receiving an event, by account, event and the event's connections. */
  const receivers = new Map<string, Webhook[]>();
  let generation = 0;
  let trusted = true;

  const invalidate = (): void => {
    generation += 1;
    keys.clear();
    connections.clear();
    receivers.clear();
  };

  const remember = <T>(map: Map<string, T>, id: string, value: T): void => {
    if (map.size >= MAX_ENTRIES) map.clear();
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
      // Every key in use writes this once a minute: it updates the key's cached row instead of
      // emptying the cache (and sends no change notice, migration 0004). A lookup racing it may
      // keep the older time; the worst that does is one more touch a minute later.
      async touchLastUsed(id, at) {
        await repo.touchLastUsed(id, at);
        for (const key of keys.values()) {
          if (key.id === id) key.lastUsedAt = new Date(at.getTime());
        }
      },
      async findByHash(keyHash) {
        if (!trusted) return repo.findByHash(keyHash);
        const known = keys.get(keyHash);
        if (known) return copyRow(known);
        const before = generation;
        const found = await repo.findByHash(keyHash);
        if (found && generation === before) remember(keys, keyHash, copyRow(found));
        return found;
      },
    };
  }

  function cachedConnections(repo: SocialAccountRepository): SocialAccountRepository {
    return {
      ...writesInvalidate(repo),
      async findByIds(ids) {
        if (!trusted) return repo.findByIds(ids);
        const unique = [...new Set(ids)];
        // What the cache holds now (copied: a write while the missing ones are read may empty
        // it); the rows read from the database are the caller's own already.
        const rows = new Map<string, SocialAccount>();
        for (const id of unique) {
          const known = connections.get(id);
          if (known) rows.set(id, copyRow(known));
        }
        const missing = unique.filter((id) => !rows.has(id));
        if (missing.length > 0) {
          const before = generation;
          const found = await repo.findByIds(missing);
          const current = generation === before;
          for (const row of found) {
            rows.set(row.id, row);
            if (current) remember(connections, row.id, copyRow(row));
          }
        }
        return unique.flatMap((id) => {
          const row = rows.get(id);
          return row ? [row] : [];
        });
      },
    };
  }

  function cachedWebhooks(repo: WebhookRepository): WebhookRepository {
    return {
      ...writesInvalidate(repo),
      noteAttempt: (id, delivered, at) => repo.noteAttempt(id, delivered, at),
      async listActiveForEvent(accountId, event, socialAccountIds) {
        if (!trusted) return repo.listActiveForEvent(accountId, event, socialAccountIds);
        const connectionsKey = socialAccountIds ? [...socialAccountIds].sort().join(',') : '*';
        const key = `${accountId} ${event} ${connectionsKey}`;
        const known = receivers.get(key);
        if (known) return known.map(copyRow);
        const before = generation;
        const found = await repo.listActiveForEvent(accountId, event, socialAccountIds);
        if (generation === before) remember(receivers, key, found.map(copyRow));
        return found;
      },
    };
  }

  const cache: LookupCache = {
    cached: (repos) => ({
      ...repos,
      apiKeys: cachedApiKeys(repos.apiKeys),
      socialAccounts: cachedConnections(repos.socialAccounts),
      webhooks: cachedWebhooks(repos.webhooks),
    }),
    invalidating: (repos) => ({
      ...repos,
      apiKeys: writesInvalidate(repos.apiKeys),
      socialAccounts: writesInvalidate(repos.socialAccounts),
      webhooks: writesInvalidate(repos.webhooks),
    }),
    invalidate,
    trust(next) {
      if (next === trusted) return;
      trusted = next;
      invalidate();
    },
    get trusted() {
      return trusted;
    },
  };
  byDatabase.set(db, cache);
  return cache;
}
