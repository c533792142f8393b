/**
 * A throw-away PostgreSQL database for one test file.
 *
 *   const pg = await createTestDatabase();
 *   describe.skipIf(pg.skipReason)(`real PostgreSQL${pg.skipReason ? ` (skipped: ${pg.skipReason})` : ''}`, ...);
 *   afterAll(() => pg.drop());
 *
 * Where the server comes from, in order:
 * 1. `DATABASE_URL` (or `options.serverUrl`): the server it names (CI on this machine:
 *    postgres://postgres@127.0.0.1:5432/postgres). The database in the URL is only used to
 *    run CREATE/DROP DATABASE.
 * 2. No URL, but a Docker engine answers: a `postgres:16-alpine` container started with
 *    testcontainers (one per process, stopped when its last database is dropped).
 * 3. Neither: `skipReason` says why, so the caller can report its real-Postgres tests as
 *    skipped (PGlite tests still run).
 *
 * Every call creates a fresh, uniquely named database (`sp_test_<ms>_<random>`) and `drop()`
 * removes it with DROP DATABASE ... WITH (FORCE). Leftovers of crashed runs older than six
 * hours are dropped on the next call.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  /** Connection string of the fresh database. */
  url: string;
  /** Its name (`sp_test_...`). */
  name: string;
  /** Where the server came from. */
  source: 'DATABASE_URL' | 'testcontainers';
  skipReason?: undefined;
  /** Drops the database (terminating open connections) and stops a container we started. */
  drop(): Promise<void>;
}

export interface SkippedTestDatabase {
  url?: undefined;
  name?: undefined;
  source?: undefined;
  /** Why there is no real PostgreSQL here. */
  skipReason: string;
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Server URL; defaults to process.env.DATABASE_URL. */
  serverUrl?: string;
  /** Set false to never try Docker (default true). */
  docker?: boolean;
}

const NAME_PREFIX = 'sp_test_';
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;
const POSTGRES_IMAGE = 'postgres:16-alpine';

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The same server URL pointing at another database (query parameters kept). */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/**
 * A setting of the server behind `url` (`current_setting`), for a test whose expectations
 * depend on how the server is configured (CI's PostgreSQL runs with autovacuum off).
 */
export async function serverSetting(url: string, name: string): Promise<string | undefined> {
  return withAdminClient(url, async (client) => {
    const { rows } = await client.query<{ value: string }>('select current_setting($1) as value', [
      name,
    ]);
    return rows[0]?.value;
  });
}

async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function dropStaleDatabases(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE datname LIKE $1',
    [`${NAME_PREFIX}%`],
  );
  const now = Date.now();
  for (const { datname } of rows) {
    const createdAt = Number(datname.slice(NAME_PREFIX.length).split('_')[0]);
    if (Number.isFinite(createdAt) && now - createdAt > STALE_AFTER_MS) {
      await client
        .query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`)
        .catch(() => {});
    }
  }
}

async function createOn(
  serverUrl: string,
  source: TestDatabase['source'],
  release: () => Promise<void>,
): Promise<TestDatabase> {
  const name = `${NAME_PREFIX}${Date.now()}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, async (client) => {
    await dropStaleDatabases(client).catch(() => {});
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
  let dropped: Promise<void> | undefined;
  return {
    url: withDatabase(serverUrl, name),
    name,
    source,
    drop: () => {
      dropped ??= withAdminClient(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      }).finally(release);
      return dropped;
    },
  };
}

// ---------------------------------------------------------------- testcontainers

interface StartedServer {
  url: string;
  stop(): Promise<void>;
}

let container: { server: Promise<StartedServer>; users: number } | undefined;

async function startContainer(): Promise<StartedServer> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const started = await new GenericContainer(POSTGRES_IMAGE)
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  return {
    url: `postgres://postgres@${started.getHost()}:${started.getMappedPort(5432)}/postgres`,
    stop: async () => {
      await started.stop();
    },
  };
}

/** Why Docker cannot be used, or undefined when an engine answers. */
async function dockerUnavailable(): Promise<string | undefined> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `no DATABASE_URL and no Docker engine (${message.split('\n')[0]})`;
  }
}

async function acquireContainer(): Promise<StartedServer> {
  if (!container) {
    const server = startContainer();
    container = { server, users: 0 };
    server.catch(() => {
      container = undefined;
    });
  }
  container.users += 1;
  return container.server;
}

async function releaseContainer(): Promise<void> {
  if (!container) return;
  container.users -= 1;
  if (container.users > 0) return;
  const { server } = container;
  container = undefined;
  await (await server).stop();
}

// ---------------------------------------------------------------- entry point

export async function createTestDatabase(
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase | SkippedTestDatabase> {
  const serverUrl = (options.serverUrl ?? process.env.DATABASE_URL)?.trim();
  if (serverUrl) return createOn(serverUrl, 'DATABASE_URL', async () => {});

  if (options.docker === false) {
    return { skipReason: 'no DATABASE_URL (Docker not tried)', drop: async () => {} };
  }
  const unavailable = await dockerUnavailable();
  if (unavailable) return { skipReason: unavailable, drop: async () => {} };

  const server = await acquireContainer();
  try {
    return await createOn(server.url, 'testcontainers', releaseContainer);
  } catch (error) {
    await releaseContainer();
    throw error;
  }
}
