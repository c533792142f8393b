/**
 * The per-mode set-up every end-to-end file shares: in production a fresh PostgreSQL database
 * (and why the mode cannot run here: no PostgreSQL, no Redis), then startSystem; after all, the
 * system closed and the database dropped. Embedded mode needs no database and always runs.
 *
 * Two shapes use it:
 * - describe.each(modes): call useSystem(mode) inside the block; the check runs in its
 *   beforeAll and each test starts with `e2e.orSkip(context)`.
 * - one describe per mode whose title says why it was skipped: `await productionCheck()` at the
 *   top of the file, describe.skipIf(check.skipReason), and useSystem('production',
 *   { database: check.database }) inside.
 */
import { afterAll, beforeAll, type TestContext } from 'vitest';
import {
  createTestDatabase,
  type SkippedTestDatabase,
  type TestDatabase,
} from '../../../testkit/src/index.ts';
import { type Mode, type StartOptions, type System, startSystem, unavailable } from './system.ts';

type Database = TestDatabase | SkippedTestDatabase;

/** What a file adds to the system it starts. */
export interface UseSystemOptions {
  /** Extra environment (e.g. timings of a pass the tests run themselves). */
  env?: Record<string, string>;
  /** Options of the fake platforms (e.g. rate limits). */
  fakes?: StartOptions['fakes'];
  /**
   * production: the database of an earlier productionCheck, instead of a fresh one made in
   * beforeAll. It is dropped after all the same.
   */
  database?: Database;
  /**
   * Starts what the system needs beside it (a fake, a store, a pool in front of the database),
   * only when the mode runs here. What it returns is added to the start options: its env over
   * `env`, its databaseUrl instead of the database's own.
   */
  prepare?: (
    database: TestDatabase | undefined,
  ) => Promise<Pick<StartOptions, 'env' | 'databaseUrl'>>;
  /** Stops what `prepare` started: after the system closes, before the database is dropped. */
  release?: () => Promise<void> | void;
}

/** The system of one describe block, for its tests and its own hooks. */
export interface SystemInUse {
  /** The running system; throws when there is none (skipped, or its set-up failed). */
  get(): System;
  /** Why the mode cannot run here, or undefined (known once beforeAll ran). */
  skipReason(): string | undefined;
  /**
   * For a test: the running system, or the test skipped with the reason its dependencies are
   * missing; a set-up that failed for another reason fails the test instead.
   */
  orSkip(context: Pick<TestContext, 'skip'>): System;
}

/** Both hooks get the time the slowest of them needs: migrations, the fakes, two runtimes. */
const HOOK_TIMEOUT_MS = 60_000;

/** Registers the set-up and the tear-down of `mode`'s system in the current describe block. */
export function useSystem(mode: Mode, options: UseSystemOptions = {}): SystemInUse {
  let database: Database | undefined = options.database;
  let system: System | undefined;
  let skipReason: string | undefined;

  beforeAll(async () => {
    if (mode === 'production') {
      database ??= await createTestDatabase();
      skipReason = await unavailable(mode, database);
      if (skipReason) return;
    }
    const ready = database?.url === undefined ? undefined : database;
    const extra = (await options.prepare?.(ready)) ?? {};
    system = await startSystem({
      mode,
      ...(ready ? { databaseUrl: ready.url } : {}),
      ...(extra.databaseUrl ? { databaseUrl: extra.databaseUrl } : {}),
      ...(options.env || extra.env ? { env: { ...options.env, ...extra.env } } : {}),
      ...(options.fakes ? { fakes: options.fakes } : {}),
    });
  }, HOOK_TIMEOUT_MS);

  afterAll(async () => {
    try {
      await system?.close();
    } finally {
      try {
        await options.release?.();
      } finally {
        await database?.drop();
      }
    }
  }, HOOK_TIMEOUT_MS);

  const get = (): System => {
    if (!system)
      throw new Error('the system did not start: see the failure of the set-up (beforeAll)');
    return system;
  };
  return {
    get,
    skipReason: () => skipReason,
    orSkip: (context) => {
      if (skipReason) return context.skip(skipReason);
      // No reason to skip: a missing system is a failed set-up, and fails the test.
      return get();
    },
  };
}

/** Production's database and why the mode cannot run here, known before the tests are collected. */
export interface ProductionCheck {
  database: Database;
  skipReason: string | undefined;
}

/**
 * For a describe block skipped as a whole (describe.skipIf): a fresh database and the reason
 * production cannot run, if any; `more` names a further need (e.g. PgBouncer). A database that
 * will not be used is dropped at once (e.g. PostgreSQL here but no Redis).
 */
export async function productionCheck(more?: () => string | undefined): Promise<ProductionCheck> {
  const database = await createTestDatabase();
  const skipReason = (await unavailable('production', database)) ?? more?.();
  if (skipReason) await database.drop();
  return { database, skipReason };
}

/** The end of a skipped block's title: why it was skipped. */
export function skippedNote(skipReason: string | undefined): string {
  return skipReason ? ` (skipped: ${skipReason})` : '';
}
