// A PostgreSQL connection that dies while a unit of work holds it (server restart, network cut,
// pg_terminate_backend) must fail that unit of work, not crash the process: pg-pool leaves a
// checked-out client without an 'error' listener, and an unhandled 'error' would be thrown.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/index.ts';
import { createPostgresDatabase } from './backends.ts';

const database = await createPostgresDatabase();

describe.skipIf(database.skipReason !== undefined)(
  `a connection lost while checked out${database.skipReason ? ` (skipped: ${database.skipReason})` : ''}`,
  () => {
    afterAll(async () => {
      await database.drop();
    });

    it('fails the unit of work and the process keeps serving', async () => {
      if (!database.url) throw new Error('no database');
      const handle = await openDatabase({ databaseUrl: database.url, dataDir: '.', poolSize: 2 });
      const killer = await openDatabase({ databaseUrl: database.url, dataDir: '.', poolSize: 1 });
      try {
        const outcome = handle.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(killer.db);
          // Idle inside the transaction while the server closes the socket: this is the moment
          // the client emits 'error' with nobody listening.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await sql`select 1`.execute(trx);
        });
        await expect(outcome).rejects.toThrow();
        const { rows } = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
        expect(rows[0]?.one).toBe(1);
      } finally {
        await handle.close();
        await killer.close();
      }
    });
  },
);
