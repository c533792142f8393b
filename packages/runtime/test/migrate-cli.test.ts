/**
 * `pnpm migrate` (src/migrate-cli.ts): reads DATABASE_URL / DATA_DIR through the config like
 * every start, applies the pending migrations and says which, is a no-op the second time, and
 * stops with one line on a bad setting or a failing migration.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { migrations, openDatabase } from '@social-publisher/adapter-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../src/migrate-cli.ts', import.meta.url));
const MIGRATIONS = Object.keys(migrations).sort();

async function migrateCli(env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI], { env: { ...base, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function appliedLines(target: string): string[] {
  return [
    ...MIGRATIONS.map((name) => `${target}: applied ${name}`),
    `${target}: ${MIGRATIONS.length} migration(s) applied`,
  ];
}

const upToDate = (target: string) =>
  `${target}: schema is up to date (${MIGRATIONS.length} migrations, nothing to run)`;

describe('pnpm migrate', () => {
  it('a bad setting: one line naming it, exit 1', async () => {
    const result = await migrateCli({ DATABASE_URL: 'mysql://db/x' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'migrate: invalid configuration: DATABASE_URL must use postgres: or postgresql:, got mysql:',
    );
  });

  it('on DATA_DIR (PGlite): applies, then reports up to date', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sp-migrate-cli-'));
    try {
      const first = await migrateCli({ DATA_DIR: dataDir });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual(appliedLines(`PGlite in ${dataDir}`));
      const second = await migrateCli({ DATA_DIR: dataDir });
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe(upToDate(`PGlite in ${dataDir}`));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

const fresh = await createTestDatabase();
const broken = await createTestDatabase();
const skipReason = fresh.skipReason ?? broken.skipReason;

describe.skipIf(skipReason)(
  `pnpm migrate on PostgreSQL${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    afterAll(async () => {
      await fresh.drop();
      await broken.drop();
    });

    it('on DATABASE_URL: applies, then reports up to date', async () => {
      const first = await migrateCli({ DATABASE_URL: fresh.url ?? '' });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual(appliedLines('PostgreSQL (DATABASE_URL)'));
      const second = await migrateCli({ DATABASE_URL: fresh.url ?? '' });
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe(upToDate('PostgreSQL (DATABASE_URL)'));
    }, 60_000);

    it('a failing migration: one line naming it and the cause, exit 1', async () => {
      const handle = await openDatabase({ databaseUrl: broken.url ?? '', dataDir: '.data' });
      try {
        // A table in the way: 0001_initial cannot create `accounts`.
        await handle.db.schema.createTable('accounts').addColumn('id', 'integer').execute();
      } finally {
        await handle.close();
      }
      const result = await migrateCli({ DATABASE_URL: broken.url ?? '' });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        'migrate: database migration "0001_initial" failed: relation "accounts" already exists',
      );
    }, 60_000);
  },
);
