/**
 * A Kysely dialect for PGlite running on its own thread (worker.ts). PGlite executes each
 * statement synchronously in WebAssembly: on the main thread a large statement (a batch of
 * inserts, a page of 10,000 posts) stops HTTP, timers and the queue for its whole length, and
 * the process uses one core for both. Here the main thread only posts the SQL and receives
 * the rows, and the thread works through statements while the main thread serves HTTP.
 */
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { errorFrom, type Reply, type Request, type StartData, type Started } from './protocol.ts';

type Pending = { resolve(reply: Reply): void; reject(error: Error): void };

/** The thread and its requests in flight. */
class DatabaseThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** Why the thread can take no more requests (it failed, exited or was closed). */
  #stopped: Error | null = null;
  readonly started: Promise<void>;

  constructor(directory: string) {
    const workerData: StartData = { directory };
    this.#worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData });
    // Idle, the thread does not keep the process alive; a request in flight does (see #ref).
    this.#worker.unref();
    this.started = new Promise<void>((resolve, reject) => {
      this.#worker.once('message', (message: Started) => {
        if (message.op === 'ready') {
          this.#worker.on('message', (reply: Reply) => this.#settle(reply));
          resolve();
        } else {
          reject(errorFrom(message.error));
        }
      });
      this.#worker.once('error', reject);
    });
    this.#worker.on('error', (error) => this.#stop(error));
    this.#worker.on('exit', (code) => {
      this.#stop(new Error(`the embedded database thread exited (code ${code})`));
    });
  }

  request(
    message: Omit<Extract<Request, { op: 'query' }>, 'id'> | { op: 'close' },
  ): Promise<Reply> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#worker.ref();
      this.#worker.postMessage({ ...message, id } as Request);
    });
  }

  /** Stops the thread at once (PGlite not closed: only when it never opened). */
  async terminate(): Promise<void> {
    this.#stop(new Error('the embedded database is closed'));
    await this.#worker.terminate();
  }

  async close(): Promise<void> {
    if (!this.#stopped) {
      const reply = await this.request({ op: 'close' }).catch(() => null);
      this.#stop(new Error('the embedded database is closed'));
      if (reply && !reply.ok) {
        await this.#worker.terminate();
        throw errorFrom(reply.error);
      }
    }
    await this.#worker.terminate();
  }

  #settle(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    pending.resolve(reply);
  }

  #stop(reason: Error): void {
    this.#stopped ??= reason;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#worker.unref();
  }
}

/** An open transaction: its connection alone may send until it ends. */
interface Transaction {
  owner: ThreadConnection;
  ended: Promise<void>;
  end(): void;
}

/**
 * A connection is a handle, not a socket: every statement goes to the one thread, where PGlite
 * runs them in the order sent. Statements outside a transaction are sent at once, without
 * waiting for the previous answer, so the thread always has the next one queued while the main
 * thread is busy with HTTP; while a transaction is open, only its own connection sends (the
 * others wait for its end), so nothing runs inside another's transaction.
 */
class ThreadConnection implements DatabaseConnection {
  readonly driver: ThreadDriver;

  constructor(driver: ThreadDriver) {
    this.driver = driver;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // The check and the send in one synchronous stretch: a transaction cannot begin between.
    for (let open = this.driver.blocking(this); open; open = this.driver.blocking(this)) {
      await open;
    }
    const reply = await this.driver.send(compiled);
    if (!reply.ok) {
      // The caller's stack, not the message handler's: where the statement was made.
      const error = errorFrom(reply.error);
      Error.captureStackTrace(error, this.executeQuery);
      throw error;
    }
    return {
      rows: reply.rows as R[],
      ...(reply.affectedRows === null ? {} : { numAffectedRows: BigInt(reply.affectedRows) }),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is refused before any row.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the embedded database');
  }
}

class ThreadDriver implements Driver {
  #thread: DatabaseThread | undefined;
  #transaction: Transaction | null = null;
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  async init(): Promise<void> {
    const thread = new DatabaseThread(this.directory);
    try {
      await thread.started;
    } catch (error) {
      await thread.terminate();
      throw error;
    }
    this.#thread = thread;
  }

  /** The end of another connection's open transaction, which `connection` must wait for. */
  blocking(connection: ThreadConnection): Promise<void> | undefined {
    const open = this.#transaction;
    return open === null || open.owner === connection ? undefined : open.ended;
  }

  send(compiled: CompiledQuery): Promise<Reply> {
    if (!this.#thread) return Promise.reject(new Error('the embedded database is not open'));
    return this.#thread.request({ op: 'query', sql: compiled.sql, params: compiled.parameters });
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const owner = connection as ThreadConnection;
    for (let open = this.blocking(owner); open; open = this.blocking(owner)) await open;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#transaction = { owner, ended, end };
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const access = settings.accessMode ? ` ${settings.accessMode}` : '';
    try {
      await owner.executeQuery(CompiledQuery.raw(`begin${isolation}${access}`));
    } catch (error) {
      this.#endTransaction(owner);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('commit'));
    } finally {
      this.#endTransaction(connection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      this.#endTransaction(connection);
    }
  }

  #endTransaction(connection: DatabaseConnection): void {
    const open = this.#transaction;
    if (open?.owner !== connection) return;
    this.#transaction = null;
    open.end();
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.#thread?.close();
  }
}

/** One process owns the data directory (data-dir-lock.ts): no migration lock is needed. */
class ThreadAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

export class PGliteThreadDialect implements Dialect {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  createAdapter() {
    return new ThreadAdapter();
  }

  createDriver(): Driver {
    return new ThreadDriver(this.directory);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect signature.
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
