// Migrations: `pnpm migrate` (src/migrate-cli.ts) applies them and is a no-op the second time,
// on PostgreSQL (DATABASE_URL) and on PGlite (DATA_DIR); a failing migration stops start-up
// with its name and the cause, and leaves nothing half-applied.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrations, openDatabase } from '../src/index.ts';
import { createPostgresDatabase, openPgliteBackend, pgliteDataDir } from './backends.ts';

const run = promisify(execFile);
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'migrate-cli.ts');
const MIGRATIONS = Object.keys(migrations).sort();

async function migrateCli(env: Record<string, string>) {
  const { DATABASE_URL: _ignored, DATA_DIR: _alsoIgnored, ...base } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI], { env: { ...base, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

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

  // A fresh PGlite takes several seconds to initialise, so this starts from the migrated
  // template (whose creation ran the same openDatabase + migrateToLatest on an empty dir).
  it('pnpm migrate on DATA_DIR: reports up to date on a migrated database', async () => {
    const dataDir = await pgliteDataDir();
    try {
      const result = await migrateCli({ DATA_DIR: dataDir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(
        `PGlite in ${dataDir}: schema is up to date (${MIGRATIONS.length} migrations, nothing to run)`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
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
    it('pnpm migrate on DATABASE_URL: applies, then reports up to date', async () => {
      const first = await migrateCli({ DATABASE_URL: freshUrl });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual([
        ...MIGRATIONS.map((name) => `PostgreSQL (DATABASE_URL): applied ${name}`),
        `PostgreSQL (DATABASE_URL): ${MIGRATIONS.length} migration(s) applied`,
      ]);
      const second = await migrateCli({ DATABASE_URL: freshUrl });
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe(
        `PostgreSQL (DATABASE_URL): schema is up to date (${MIGRATIONS.length} migrations, nothing to run)`,
      );
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

      const cli = await migrateCli({ DATABASE_URL: brokenUrl });
      expect(cli.code).toBe(1);
      expect(cli.stderr.trim()).toBe(
        'migrate: database migration "0001_initial" failed: relation "accounts" already exists',
      );
    }, 60_000);
  });
}
