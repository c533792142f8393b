// The embedded database on its own thread: a long statement, or a tight loop of short ones,
// leaves the main thread free; a database error arrives with PostgreSQL's fields; a
// transaction runs alone; a closed database refuses clearly.
import { makeApiKey, seedUser } from '@social-publisher/domain/contracts/storage-fixtures';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, openPgliteBackend } from './backends.ts';

describe('PGlite on its own thread', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  });
  afterAll(() => backend.close());

  it('keeps the main thread turning while a long statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    const startedAt = performance.now();
    try {
      // About a quarter of a second of work inside PGlite, as one statement.
      await sql`select count(*) from generate_series(1, 3000000) as g where g % 7 = 3`.execute(
        backend.handle.db,
      );
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - startedAt;
    expect(elapsed).toBeGreaterThan(50);
    // On the main thread the interval could not fire until the statement ended (one tick).
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
  });

  it('creates WAL segments without zero-filling them (a 40 ms stall of one statement each)', async () => {
    const { rows } = await sql<{ wal_init_zero: string }>`show wal_init_zero`.execute(
      backend.handle.db,
    );
    expect(rows).toEqual([{ wal_init_zero: 'off' }]);
  });

  it('lets timers run between queries of a tight loop (a draining worker must not starve HTTP)', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    try {
      const startedAt = performance.now();
      let queries = 0;
      // Back-to-back queries for ~300 ms, never awaiting anything but the database.
      while (performance.now() - startedAt < 300) {
        await sql`select 1`.execute(backend.handle.db);
        queries += 1;
      }
      expect(queries).toBeGreaterThan(10);
    } finally {
      clearInterval(timer);
    }
    // PGlite answers from its own thread, as messages (macrotasks): timers run between them.
    // (PGlite on this thread resolved in microtasks, and the interval never fired.)
    expect(ticks).toBeGreaterThan(5);
  });

  it("passes a database error on with PostgreSQL's fields", async () => {
    const { repos } = backend.handle;
    const user = await seedUser(repos);
    const key = makeApiKey(user.id, user.id);
    await repos.apiKeys.insert(key);
    const duplicate = await repos.apiKeys.insert(key).then(
      () => null,
      (error: unknown) => error,
    );
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 'api_keys_pkey' });
    // The caller's stack: where the statement was made, not the thread's message handler.
    expect((duplicate as Error).stack).toContain('pglite-thread.test.ts');
  });

  it('runs nothing of others inside an open transaction: they wait for its end', async () => {
    const { db } = backend.handle;
    await sql`create table if not exists gate_probe (n int)`.execute(db);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = () => {};
    const insertedInside = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = db.transaction().execute(async (trx) => {
      await sql`insert into gate_probe values (1)`.execute(trx);
      inserted();
      await held;
    });
    await insertedInside;
    let outsideDone = false;
    const outside = sql<{ n: number }>`select count(*)::int as n from gate_probe`
      .execute(db)
      .then((result) => {
        outsideDone = true;
        return result.rows[0]?.n;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Sent at once, it would have run inside the open transaction and seen its row.
    expect(outsideDone).toBe(false);
    release();
    await transaction;
    expect(await outside).toBe(1);
  });

  it('refuses statements once closed, saying why', async () => {
    const closed = await openPgliteBackend();
    await closed.close();
    await expect(sql`select 1`.execute(closed.handle.db)).rejects.toThrow(/destroyed|closed/);
  });
});
