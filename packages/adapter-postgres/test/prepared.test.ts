// Named statements on a real PostgreSQL: the hot statements are prepared once per connection
// (and not when turned off); behind PgBouncer in transaction pooling, which cannot keep them,
// a refused one is sent again unnamed, naming stops for the pool, and it is said once.

import type { Logger } from '@social-publisher/domain';
import { makeApiKey, seedUser } from '@social-publisher/domain/contracts/storage-fixtures';
import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  type PgBouncer,
  pgBouncerUnavailable,
  startPgBouncer,
} from '../../testkit/src/pgbouncer.ts';
import { type DatabaseHandle, openDatabase } from '../src/index.ts';
import { preparedName, preparedSql } from '../src/prepared.ts';
import type { Database } from '../src/schema.ts';
import { createPostgresDatabase } from './backends.ts';

const database = await createPostgresDatabase();
const bouncerSkip = pgBouncerUnavailable();

async function preparedNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await db.executeQuery<{ name: string }>(
    CompiledQuery.raw('select name from pg_prepared_statements order by name'),
  );
  return rows.map((row) => row.name);
}

function recordingLogger(): Logger & { warn: ReturnType<typeof vi.fn> } {
  const logger = {
    trace: vi.fn(),
    debug: vi.fn(),
    info: vi.fn(),
    warn: vi.fn(),
    error: vi.fn(),
    fatal: vi.fn(),
    child: () => logger,
  };
  return logger as unknown as Logger & { warn: ReturnType<typeof vi.fn> };
}

describe('preparedName', () => {
  it('reads the name of marked text only', () => {
    expect(preparedName(preparedSql('api_keys_by_hash', 'select 1'))).toBe('api_keys_by_hash');
    expect(preparedName('select 1 /* prepared x */')).toBeNull();
    expect(preparedName('/* prepared unterminated select 1')).toBeNull();
  });
});

if (database.skipReason !== undefined) {
  describe('prepared statements', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  const url = database.url;
  describe('prepared statements', () => {
    const handles: DatabaseHandle[] = [];
    const open = async (options: { url?: string; prepared?: boolean; logger?: Logger }) => {
      const handle = await openDatabase({
        databaseUrl: options.url ?? url,
        dataDir: '.data',
        migrate: handles.length === 0,
        // One connection: the statements below and pg_prepared_statements see the same one.
        poolSize: 1,
        ...(options.prepared === undefined ? {} : { preparedStatements: options.prepared }),
        ...(options.logger ? { logger: options.logger } : {}),
      });
      handles.push(handle);
      return handle;
    };

    afterAll(async () => {
      for (const handle of handles) await handle.close();
      await database.drop();
    });

    it('prepares a hot statement once per connection, and answers the same each time', async () => {
      const { repos, db } = await open({});
      const user = await seedUser(repos); // its personal account has the user's id
      const key = makeApiKey(user.id, user.id);
      await repos.apiKeys.insert(key);
      expect(await repos.apiKeys.findByHash(key.keyHash)).toEqual(key);
      expect(await repos.apiKeys.findByHash(key.keyHash)).toEqual(key);
      expect(await repos.apiKeys.findByHash('0'.repeat(64))).toBeNull();
      expect(await preparedNames(db)).toEqual(['api_keys_by_hash']);
    });

    it('sends marked statements unnamed inside a transaction (a refusal there would abort it)', async () => {
      const { db } = await open({});
      const statement = CompiledQuery.raw(preparedSql('inside_transaction', 'select 1 as n'));
      await db.transaction().execute(async (trx) => {
        expect((await trx.executeQuery(statement)).rows).toEqual([{ n: 1 }]);
      });
      expect(await preparedNames(db)).not.toContain('inside_transaction');
      await db.executeQuery(statement);
      expect(await preparedNames(db)).toContain('inside_transaction');
    });

    it("rejects a failed statement with the server's error, its stack leading to the caller", async () => {
      const { db } = await open({});
      const named = CompiledQuery.raw(preparedSql('divide_by_zero', 'select 1 / 0 as n'));
      const plain = CompiledQuery.raw('select 1 / 0 as n');
      for (const statement of [named, plain]) {
        const error = await db.executeQuery(statement).then(
          () => undefined,
          (caught: unknown) => caught as Error & { code?: string },
        );
        expect(error?.code).toBe('22012');
        expect(error?.stack).toContain('prepared.test.ts');
      }
    });

    it("asks pg for each statement with a callback, never in pg's promise form", async () => {
      // The promise form kept each result's rows alive into the next young-generation
      // collection, which promoted them (5-7 MB a collection under GET /posts): see prepared.ts.
      // Spied before the pool exists: its client class takes pg's query when it is made.
      const query = vi.spyOn(pg.Client.prototype, 'query');
      try {
        const { db } = await open({});
        await db.executeQuery(CompiledQuery.raw(preparedSql('callback_form', 'select 1 as n')));
        await db.executeQuery(CompiledQuery.raw('select $1::int as n', [2]));
        await db.transaction().execute(async (trx) => {
          await trx.executeQuery(CompiledQuery.raw('select 3 as n'));
        });
        expect(query.mock.calls.length).toBeGreaterThanOrEqual(3);
        for (const args of query.mock.calls) expect(typeof args.at(-1)).toBe('function');
      } finally {
        query.mockRestore();
      }
    });

    it('sends every statement unnamed when turned off', async () => {
      const { repos, db } = await open({ prepared: false });
      expect(await repos.apiKeys.findByHash('0'.repeat(64))).toBeNull();
      expect(await preparedNames(db)).toEqual([]);
    });

    describe.skipIf(bouncerSkip !== undefined)(
      `behind PgBouncer in transaction pooling${bouncerSkip ? ` (skipped: ${bouncerSkip})` : ''}`,
      () => {
        let bouncer: PgBouncer | undefined;
        afterAll(async () => {
          await bouncer?.close();
        });

        it('sends a refused statement again unnamed and stops naming, saying so once', async () => {
          // One server connection behind two client pools: the second pool's Parse of the same
          // name lands where the first already prepared it, and the server refuses it.
          bouncer = await startPgBouncer({ serverUrl: url, poolMode: 'transaction', poolSize: 1 });
          const first = await open({ url: bouncer.via(url) });
          const logger = recordingLogger();
          const second = await open({ url: bouncer.via(url), logger });
          const statement = CompiledQuery.raw(
            preparedSql('pgbouncer_probe', 'select $1::int as n'),
            [7],
          );
          expect((await first.db.executeQuery(statement)).rows).toEqual([{ n: 7 }]);
          for (let i = 0; i < 3; i++) {
            expect((await second.db.executeQuery(statement)).rows).toEqual([{ n: 7 }]);
          }
          const refusals = logger.warn.mock.calls.filter(([, message]) =>
            String(message).includes('refused a prepared statement'),
          );
          expect(refusals).toHaveLength(1);
          expect(refusals[0]?.[0]).toMatchObject({ statement: 'pgbouncer_probe' });
        });
      },
    );
  });
}
