/**
 * The two database backends of the adapter, as test fixtures: a PGlite database in a temp dir
 * (removed after), and a fresh database on a real PostgreSQL server (dropped after).
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StorageUnderTest } from '@social-publisher/domain/contracts/storage-fixtures';
// testkit depends on this package, so it is imported by path rather than as a dependency.
import {
  createTestDatabase,
  type SkippedTestDatabase,
  type TestDatabase,
} from '../../testkit/src/postgres.ts';
import { type DatabaseHandle, type OpenDatabaseOptions, openDatabase } from '../src/index.ts';
import { postgresStorageTesting } from '../src/testing.ts';

export interface Backend {
  handle: DatabaseHandle;
  /** Storage for the contract suites; its teardown is a no-op (the backend is closed once). */
  storage(): Promise<StorageUnderTest>;
  close(): Promise<void>;
}

const asStorage = (handle: DatabaseHandle) => async (): Promise<StorageUnderTest> => ({
  repos: handle.repos,
  uow: handle.uow,
  testing: postgresStorageTesting(handle.db),
  teardown: async () => {},
});

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A migrated PGlite data dir to copy from: initdb of PGlite takes several seconds, a copy
 * well under one. Cached in node_modules/.cache, keyed by the PGlite version and the migration
 * sources, and built atomically (parallel test files may race to create it).
 */
async function pgliteTemplate(): Promise<string> {
  const pgliteVersion = JSON.parse(
    readFileSync(join(PACKAGE_DIR, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ).version;
  const migrationsDir = join(PACKAGE_DIR, 'src', 'migrations');
  const hash = createHash('sha256').update(String(pgliteVersion));
  for (const file of readdirSync(migrationsDir).sort()) {
    hash.update(file).update(readFileSync(join(migrationsDir, file)));
  }
  const cacheDir = join(PACKAGE_DIR, 'node_modules', '.cache');
  const template = join(cacheDir, `pglite-template-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(template, 'READY'))) return template;
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(`${template}-staging-`);
  try {
    const handle = await openDatabase({ dataDir: staging, migrate: true });
    await handle.close();
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  writeFileSync(join(staging, 'READY'), '');
  try {
    renameSync(staging, template);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another test file made it first
  }
  return template;
}

/** A temp PGlite data dir holding the migrated schema (caller removes it). */
export async function pgliteDataDir(): Promise<string> {
  const template = await pgliteTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-pglite-'));
  cpSync(template, dataDir, { recursive: true });
  return dataDir;
}

export async function openPgliteBackend(
  options: Partial<OpenDatabaseOptions> = {},
): Promise<Backend & { dataDir: string }> {
  const dataDir = await pgliteDataDir();
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  const handle = await openDatabase({ dataDir, migrate: true, ...options }).catch((error) => {
    removeDir();
    throw error;
  });
  return {
    handle,
    dataDir,
    storage: asStorage(handle),
    close: async () => {
      await handle.close();
      removeDir();
    },
  };
}

/** A fresh database on the real server; `skipReason` when there is none (see testkit). */
export async function createPostgresDatabase(): Promise<TestDatabase | SkippedTestDatabase> {
  return createTestDatabase();
}

export async function openPostgresBackend(
  database: TestDatabase,
  options: Partial<OpenDatabaseOptions> = {},
): Promise<Backend> {
  const handle = await openDatabase({
    databaseUrl: database.url,
    dataDir: '.data',
    migrate: true,
    ...options,
  });
  return { handle, storage: asStorage(handle), close: () => handle.close() };
}
