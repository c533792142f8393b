// Migrations: migrateToLatest applies them and is a no-op the second time, on PostgreSQL and
// on PGlite; a failing migration stops start-up with its name and the cause, and leaves
// nothing half-applied. (`pnpm migrate`, the command over it, is tested in packages/runtime.)
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrations, openDatabase } from '../src/index.ts';
import { createPostgresDatabase, openPgliteBackend } from './backends.ts';

const MIGRATIONS = Object.keys(migrations).sort();

describe('migrations: pglite', () => {
  it('migrateToLatest twice: the second run applies nothing', async () => {
    const backend = await openPgliteBackend();
    try {
      expect(await migrateToLatest(backend.handle.db)).toEqual({ applied: [], known: MIGRATIONS });
      const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(
        backend.handle.db,
      );
      expect(rows.map((row) => row.name)).toEqual(MIGRATIONS);
    } finally {
      await backend.close();
    }
  });
});

const fresh = await createPostgresDatabase();
const broken = await createPostgresDatabase();
afterAll(async () => {
  await fresh.drop();
  await broken.drop();
});

if (fresh.skipReason !== undefined || broken.skipReason !== undefined) {
  describe('migrations: postgres', () => {
    it.skip(`skipped: ${fresh.skipReason ?? broken.skipReason}`, () => {});
  });
} else {
  const freshUrl = fresh.url;
  const brokenUrl = broken.url;

  describe('migrations: postgres', () => {
    it('migrateToLatest on a fresh database applies every migration, then nothing', async () => {
      const handle = await openDatabase({ databaseUrl: freshUrl, dataDir: '.data' });
      try {
        expect(await migrateToLatest(handle.db)).toEqual({
          applied: MIGRATIONS,
          known: MIGRATIONS,
        });
        expect(await migrateToLatest(handle.db)).toEqual({ applied: [], known: MIGRATIONS });
      } finally {
        await handle.close();
      }
    }, 60_000);

    it('a failing migration throws with its name and cause, and applies nothing', async () => {
      const db = (await openDatabase({ databaseUrl: brokenUrl, dataDir: '.data' })).db;
      try {
        // A table in the way: 0001_initial cannot create `accounts`.
        await sql`CREATE TABLE accounts (id integer)`.execute(db);
        const failure = await migrateToLatest(db).then(
          () => null,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(Error);
        expect((failure as Error).message).toMatch(
          /^database migration "0001_initial" failed: relation "accounts" already exists$/,
        );
        expect((failure as Error).cause).toBeInstanceOf(Error);
        // All or nothing: `users` (created before `accounts`) was rolled back, and the
        // migration is not recorded as done.
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM information_schema.tables
          WHERE table_schema = 'public' AND table_name = 'users'`.execute(db);
        expect(rows[0]?.n).toBe(0);
        const done = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
        expect(done.rows).toEqual([]);
      } finally {
        await db.destroy();
      }
      await expect(
        openDatabase({ databaseUrl: brokenUrl, dataDir: '.data', migrate: true }),
      ).rejects.toThrow('database migration "0001_initial" failed');
    }, 60_000);
  });
}
