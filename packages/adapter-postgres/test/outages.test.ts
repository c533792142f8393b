// Every error of the driver passes src/outages.ts: a transport failure leaves as the domain's
// DependencyUnavailableError('database') with the driver's error as cause, anything else as it
// came. Checked on a scripted driver (each path Kysely takes) and on a real pg pool.
import { DependencyUnavailableError, outageOf } from '@social-publisher/domain';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../testkit/src/index.ts';
import { openDatabase } from '../src/index.ts';
import { reportingOutages } from '../src/outages.ts';

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A driver whose connect, statements or commit fail with the error given. */
function scriptedDialect(fail: { connect?: Error; query?: Error; commit?: Error }): Dialect {
  const connection: DatabaseConnection = {
    executeQuery: async () => {
      if (fail.query) throw fail.query;
      return { rows: [] };
    },
    // biome-ignore lint/correctness/useYield: a stream that fails at once
    streamQuery: async function* () {
      throw fail.query ?? new Error('no stream');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => {
      if (fail.connect) throw fail.connect;
      return connection;
    },
    beginTransaction: async () => {},
    commitTransaction: async (given) => {
      // The driver gets its own connection back, not the wrapper.
      if (given !== connection) throw new Error('not the driver connection');
      if (fail.commit) throw fail.commit;
    },
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return {
    createDriver: () => driver,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createAdapter: () => new PostgresAdapter(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
}

const select = (db: Kysely<unknown>) =>
  db.executeQuery(CompiledQuery.raw('select 1')).catch((error: unknown) => error);

describe('reportingOutages', () => {
  it('a refused connection is an outage of the database, the driver error as cause', async () => {
    const cause = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    const db = new Kysely<unknown>({
      dialect: reportingOutages(scriptedDialect({ connect: cause })),
    });
    const error = await select(db);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe('database');
    expect((error as Error).cause).toBe(cause);
  });

  it('a statement cut by a server shutting down (57P01) is an outage', async () => {
    const cause = coded('57P01', 'terminating connection due to administrator command');
    const db = new Kysely<unknown>({
      dialect: reportingOutages(scriptedDialect({ query: cause })),
    });
    expect(outageOf(await select(db))?.cause).toBe(cause);
  });

  it('a commit that loses the connection is an outage; the driver gets its own connection', async () => {
    const cause = new Error('Connection terminated unexpectedly');
    const db = new Kysely<unknown>({
      dialect: reportingOutages(scriptedDialect({ commit: cause })),
    });
    const error = await db
      .transaction()
      .execute(async (trx) => sql`select 1`.execute(trx))
      .catch((caught: unknown) => caught);
    expect(outageOf(error)?.cause).toBe(cause);
  });

  it('any other error (a unique violation) leaves as it came', async () => {
    const unique = coded('23505', 'duplicate key value violates unique constraint');
    const db = new Kysely<unknown>({
      dialect: reportingOutages(scriptedDialect({ query: unique })),
    });
    expect(await select(db)).toBe(unique);
  });

  it('a pg pool on a closed port fails the start with an outage of the database', async () => {
    const port = await freePort();
    const error = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/nope`,
      dataDir: '.',
      migrate: true,
    }).catch((caught: unknown) => caught);
    // The migrations wrap the driver's error; the outage is its cause.
    expect(outageOf(error)?.dependency).toBe('database');
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});
