/**
 * The one place every error of the driver passes through on its way to a repository, the unit
 * of work or the migrations: a Kysely dialect whose driver and connections report a transport
 * failure (the pool cannot connect, the server went away or is shutting down: the domain's
 * `isTransportFailure`) as the domain's `DependencyUnavailableError('database')`, the driver's
 * error kept as its cause. Any other error (a constraint, a syntax error) leaves as it came.
 * The same wrapper serves the pg pool and the PGlite thread.
 */
import { translateOutage } from '@social-publisher/domain';
import type {
  DatabaseConnection,
  Dialect,
  Driver,
  Kysely,
  QueryResult,
  TransactionSettings,
} from 'kysely';

async function reported<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translateOutage('database', error);
  }
}

async function* reportedStream<R>(
  rows: AsyncIterableIterator<QueryResult<R>>,
): AsyncIterableIterator<QueryResult<R>> {
  try {
    yield* rows;
  } catch (error) {
    throw translateOutage('database', error);
  }
}

/** A connection whose statements report outages; the driver gets its own connection back. */
function reportingConnection(inner: DatabaseConnection): DatabaseConnection {
  const outer: DatabaseConnection = {
    executeQuery: (query, options) => reported(() => inner.executeQuery(query, options)),
    streamQuery: (query, chunkSize, options) =>
      reportedStream(inner.streamQuery(query, chunkSize, options)),
  };
  // Kysely calls these on abort (cancel the statement, end the session) when the driver has them.
  const { cancelQuery, collectSessionInfo, killSession } = inner;
  if (cancelQuery)
    outer.cancelQuery = (control) => reported(() => cancelQuery.call(inner, control));
  if (killSession)
    outer.killSession = (control) => reported(() => killSession.call(inner, control));
  if (collectSessionInfo) {
    outer.collectSessionInfo = () => reported(() => collectSessionInfo.call(inner));
  }
  return outer;
}

class OutageReportingDriver implements Driver {
  readonly #inner: Driver;
  /** Our connection -> the driver's, which its own methods expect (they use private members). */
  readonly #connections = new WeakMap<DatabaseConnection, DatabaseConnection>();
  /** The driver's connection -> ours: one wrapper per pooled connection, not one per query. */
  readonly #wrappers = new WeakMap<DatabaseConnection, DatabaseConnection>();
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  constructor(inner: Driver) {
    this.#inner = inner;
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = inner;
    // Only what the driver supports: Kysely refuses savepoints on a driver without them.
    if (savepoint) {
      this.savepoint = (connection, name, compile) =>
        reported(() => savepoint.call(inner, this.#own(connection), name, compile));
    }
    if (rollbackToSavepoint) {
      this.rollbackToSavepoint = (connection, name, compile) =>
        reported(() => rollbackToSavepoint.call(inner, this.#own(connection), name, compile));
    }
    if (releaseSavepoint) {
      this.releaseSavepoint = (connection, name, compile) =>
        reported(() => releaseSavepoint.call(inner, this.#own(connection), name, compile));
    }
  }

  #own(connection: DatabaseConnection): DatabaseConnection {
    return this.#connections.get(connection) ?? connection;
  }

  init(options?: Parameters<Driver['init']>[0]): Promise<void> {
    return reported(() => this.#inner.init(options));
  }

  async acquireConnection(
    options?: Parameters<Driver['acquireConnection']>[0],
  ): Promise<DatabaseConnection> {
    const inner = await reported(() => this.#inner.acquireConnection(options));
    let outer = this.#wrappers.get(inner);
    if (!outer) {
      outer = reportingConnection(inner);
      this.#wrappers.set(inner, outer);
      this.#connections.set(outer, inner);
    }
    return outer;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return reported(() => this.#inner.beginTransaction(this.#own(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return reported(() => this.#inner.commitTransaction(this.#own(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return reported(() => this.#inner.rollbackTransaction(this.#own(connection)));
  }

  releaseConnection(
    connection: DatabaseConnection,
    options?: Parameters<Driver['releaseConnection']>[1],
  ): Promise<void> {
    return reported(() => this.#inner.releaseConnection(this.#own(connection), options));
  }

  destroy(options?: Parameters<Driver['destroy']>[0]): Promise<void> {
    return reported(() => this.#inner.destroy(options));
  }
}

/** `dialect` with its driver reporting outages (see above); compiler and adapter unchanged. */
export function reportingOutages(dialect: Dialect): Dialect {
  return {
    createDriver: () => new OutageReportingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature
    createIntrospector: (db: Kysely<any>) => dialect.createIntrospector(db),
  };
}
