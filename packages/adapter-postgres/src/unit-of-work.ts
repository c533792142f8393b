import { AsyncLocalStorage } from 'node:async_hooks';
import type { Repositories, UnitOfWork } from '@social-publisher/domain';
import type {
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { StatementSharing } from './batch.ts';
import { createLookupCache, type LookupCache } from './lookup-cache.ts';
import { createRepositories } from './repositories/index.ts';
import type { Database } from './schema.ts';

interface TransactionScope {
  repos: Repositories;
  /** false once the transaction has ended (work started inside it may outlive it). */
  open: boolean;
}

/**
 * Refuses queries made through the non-transactional repositories while the same async flow is
 * inside `uow.run`: on PGlite (a single connection) such a query would wait for the transaction
 * that is waiting for it, forever; on PostgreSQL it would silently run outside the transaction.
 * Failing loudly on both backends keeps them alike.
 */
class OutsideTransactionGuard implements KyselyPlugin {
  readonly #scope: AsyncLocalStorage<TransactionScope>;

  constructor(scope: AsyncLocalStorage<TransactionScope>) {
    this.#scope = scope;
  }

  /** Throws when the calling async flow is inside `uow.run`. */
  check(): void {
    if (this.#scope.getStore()?.open) {
      throw new Error(
        'a non-transactional repository was used inside uow.run(); use the repositories passed to the unit of work',
      );
    }
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.check();
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

export interface Storage {
  /** Repositories outside any transaction (each call is its own statement). */
  repos: Repositories;
  uow: UnitOfWork;
  /** With `cacheLookups`: the cache behind `repos` (lookup-cache.ts). */
  lookupCache?: LookupCache;
}

/**
 * Repositories and a unit of work on one Kysely instance. `uow.run` runs `work` in one
 * transaction (committed when it resolves, rolled back when it throws) with repositories bound
 * to it. A nested `run` in the same async flow joins the outer transaction.
 * On PGlite, Kysely holds the single connection for the whole transaction, so concurrent
 * units of work (and plain queries) queue behind it instead of interleaving.
 */
export function createStorage(
  db: Kysely<Database>,
  sharing: Omit<StatementSharing, 'batch'> = {},
  options: { cacheLookups?: boolean } = {},
): Storage {
  const scope = new AsyncLocalStorage<TransactionScope>();
  const guard = new OutsideTransactionGuard(scope);
  // Shared statements run in another caller's context: the guard also checks each call.
  const pool = createRepositories(db.withPlugin(guard), {
    ...sharing,
    batch: true,
    check: () => guard.check(),
  });
  // API keys and connections in memory (lookup-cache.ts): always on PGlite, on PostgreSQL
  // while change notices are heard (lookup-listener.ts).
  const cache = options.cacheLookups ? createLookupCache(db) : undefined;
  const repos = cache ? cache.cached(pool) : pool;
  const uow: UnitOfWork = {
    async run<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
      const current = scope.getStore();
      if (current?.open) return work(current.repos);
      return db
        .transaction()
        .execute(async (trx) => {
          const txRepos = createRepositories(trx);
          const txScope: TransactionScope = {
            repos: cache ? cache.invalidating(txRepos) : txRepos,
            open: true,
          };
          try {
            return await scope.run(txScope, () => work(txScope.repos));
          } finally {
            txScope.open = false;
          }
        })
        .finally(() => cache?.invalidate());
    },
  };
  return cache ? { repos, uow, lookupCache: cache } : { repos, uow };
}
