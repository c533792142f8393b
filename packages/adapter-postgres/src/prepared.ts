/**
 * Named (prepared) statements for the hot SQL: the statements every request or publish run
 * sends, always with the same text, are parsed and planned once per connection instead of at
 * every call (a quarter of PostgreSQL's CPU under the create benchmark's load).
 *
 * A statement opts in by starting with a `/* prepared <name> *\/` comment (readable in
 * pg_stat_statements and the slow-query log too); the pool's client class sends those as
 * named statements. PgBouncer before 1.21 in transaction pooling cannot keep a named statement
 * on the server connection it was parsed on: set `DATABASE_PREPARED_STATEMENTS=false` there.
 * When the server refuses one anyway (the statement is unknown on this server connection, or
 * already there under another client's use), the pool stops naming statements, says so once,
 * and sends that statement again unnamed: the refusal happens before it runs, so nothing ran
 * twice. Inside a transaction statements always go unnamed: a refusal there would abort the
 * transaction, and no hot statement runs in one.
 */
import { errorMessage, type Logger } from '@social-publisher/domain';
import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';

const PREFIX = '/* prepared ';
const SUFFIX = ' */';

/** `text` marked to be sent as the named statement `name` (names are unique per statement). */
export function preparedSql(name: string, text: string): string {
  return `${PREFIX}${name}${SUFFIX} ${text}`;
}

/** The same mark at the start of a Kysely `sql` template. */
export function preparedMark(name: string): RawBuilder<unknown> {
  return sql.raw(`${PREFIX}${name}${SUFFIX} `);
}

/** The statement name of marked text, or null. */
export function preparedName(text: string): string | null {
  if (!text.startsWith(PREFIX)) return null;
  const end = text.indexOf(SUFFIX, PREFIX.length);
  return end < 0 ? null : text.slice(PREFIX.length, end);
}

/** SQLSTATEs of a named statement the server does not have, or already has. */
const REFUSED = new Set(['26000', '42P05']);

export interface PreparedStatementsOptions {
  enabled: boolean;
  logger?: Logger;
}

type Query = (...args: unknown[]) => unknown;
/** pg's client knows it from the server's last ReadyForQuery: I idle, T or E in a transaction. */
interface TransactionStatus {
  getTransactionStatus(): string | null;
}

/**
 * The pg client class of one pool: marked statements go as named ones while `enabled` holds.
 * The switch is per pool (one class per pool), so one refusal turns naming off for all its
 * connections.
 */
export function preparingClientClass(options: PreparedStatementsOptions): typeof pg.Client {
  const state = { enabled: options.enabled };
  const stopNaming = (error: unknown, name: string): void => {
    if (!state.enabled) return;
    state.enabled = false;
    options.logger?.warn(
      { err: errorMessage(error), statement: name },
      'postgres refused a prepared statement (PgBouncer in transaction pooling?): statements are sent unnamed from now on; set DATABASE_PREPARED_STATEMENTS=false to skip this',
    );
  };
  class PreparingClient extends pg.Client {}
  const plainQuery = pg.Client.prototype.query as unknown as Query;
  // Kysely calls query(text, values) and awaits the promise; other shapes pass through.
  (PreparingClient.prototype as unknown as { query: Query }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const [text, values] = args;
    if (typeof text !== 'string' || args.length > 2) return plainQuery.apply(this, args);
    const name = preparedName(text);
    if (name === null || !state.enabled || !outsideTransaction(this)) {
      return queryByCallback(this, plainQuery, text, values);
    }
    return queryByCallback(this, plainQuery, { name, text, values }).catch((error: unknown) => {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !REFUSED.has(code)) throw error;
      stopNaming(error, name);
      return queryByCallback(this, plainQuery, text, values);
    });
  };
  return PreparingClient;
}

/** 'I': idle, outside a transaction (null before the first statement, also outside). */
function outsideTransaction(client: pg.Client): boolean {
  const status = (client as unknown as TransactionStatus).getTransactionStatus();
  return status === 'I' || status === null;
}

/**
 * pg's `query` in its callback form, wrapped in a promise here. Its promise form (no callback)
 * leaves each result's rows reachable until the next young-generation collection, which then
 * copies them to the old generation: measured on a loop of one 150-row statement, a collection
 * promoted 5-7 MB where the callback form promotes none, and under `GET /posts` each such
 * collection took 15-70 ms on this 2-core machine, the API's p99.
 */
function queryByCallback(
  client: pg.Client,
  plainQuery: Query,
  config: unknown,
  values?: unknown,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: unknown) =>
      error ? reject(error) : resolve(result);
    if (values === undefined) plainQuery.call(client, config, done);
    else plainQuery.call(client, config, values, done);
  }).catch((error: unknown) => {
    // Taken in a later tick, as pg does: the stack then leads to the caller's awaits.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  });
}
