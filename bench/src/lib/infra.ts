/**
 * The parts every benchmark stands on: a throw-away database and Redis prefix (production mode)
 * or a throw-away PGlite directory (embedded mode), the validated config built from them, a
 * logger that keeps the output readable, and seeding through the domain use cases.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Config } from '@social-publisher/config';
import type { AccountContext, Actor, CoreDeps, Platform } from '@social-publisher/domain';
import { seedUserWithConnections } from '@social-publisher/domain/testing';
import { loadRuntimeConfig } from '@social-publisher/runtime';
import { createTestDatabase } from '@social-publisher/testkit';
import { Redis } from 'ioredis';
import pino from 'pino';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function serverUrls(): { databaseUrl: string; redisUrl: string } {
  return {
    databaseUrl: process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL,
    redisUrl: process.env.REDIS_URL?.trim() || DEFAULT_REDIS_URL,
  };
}

export type Mode = 'production' | 'embedded';

/** How a mode is named in the figures. */
export const MODE_LABEL: Record<Mode, string> = {
  production: 'postgres+redis',
  embedded: 'embedded',
};

export interface Backend {
  mode: Mode;
  label: string;
  /** Environment for loadConfig: DATABASE_URL + REDIS_URL + QUEUE_PREFIX, or DATA_DIR. */
  env: Record<string, string>;
  databaseUrl: string | null;
  /** The run's own database (production), to tell its PostgreSQL backends apart. */
  databaseName: string | null;
  redisUrl: string | null;
  /** Redis key prefix of this run (production). */
  prefix: string | null;
  dataDir: string;
  /** Drops the database, deletes the prefix's keys, removes the data directory. */
  cleanup(): Promise<void>;
}

let prefixes = 0;

/** `redisUrl`: a Redis of the bench's own instead of REDIS_URL (production mode). */
export async function createBackend(
  mode: Mode,
  name: string,
  options: { redisUrl?: string } = {},
): Promise<Backend> {
  const dataDir = mkdtempSync(join(tmpdir(), `sp-bench-${name}-`));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (mode === 'embedded') {
    return {
      mode,
      label: MODE_LABEL[mode],
      env: { DATA_DIR: dataDir },
      databaseUrl: null,
      databaseName: null,
      redisUrl: null,
      prefix: null,
      dataDir,
      cleanup: async () => removeDir(),
    };
  }
  const urls = { ...serverUrls(), ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}) };
  const database = await createTestDatabase({ serverUrl: urls.databaseUrl, docker: false });
  if (database.skipReason !== undefined) throw new Error(database.skipReason);
  prefixes += 1;
  const prefix = `{sp-bench-${name}-${process.pid}-${Date.now().toString(36)}-${prefixes}}`;
  return {
    mode,
    label: MODE_LABEL[mode],
    env: {
      DATABASE_URL: database.url,
      REDIS_URL: urls.redisUrl,
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
    },
    databaseUrl: database.url,
    databaseName: database.name,
    redisUrl: urls.redisUrl,
    prefix,
    dataDir,
    cleanup: async () => {
      await deleteRedisKeys(urls.redisUrl, prefix).catch((error: unknown) => {
        process.stderr.write(`bench: could not delete Redis keys ${prefix}*: ${String(error)}\n`);
      });
      await database.drop();
      removeDir();
    },
  };
}

/** Runs `fn` on a fresh backend and always cleans it up. */
export async function withBackend<T>(
  mode: Mode,
  name: string,
  fn: (backend: Backend) => Promise<T>,
): Promise<T> {
  const backend = await createBackend(mode, name);
  try {
    return await fn(backend);
  } finally {
    await backend.cleanup();
  }
}

/** Deletes every key starting with `prefix` (SCAN + UNLINK). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** The database a config points at (production), or null (embedded). */
export function databaseNameOf(config: Config): string | null {
  return config.databaseUrl
    ? decodeURIComponent(new URL(config.databaseUrl).pathname.slice(1))
    : null;
}

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/**
 * The config a deployment would use, on this backend. Rate limits are lifted (the load is one
 * API key); webhooks to a local receiver are allowed (WEBHOOK_ALLOW_HTTP/PRIVATE).
 */
export function benchConfig(backend: Backend, extra: Record<string, string> = {}): Config {
  return loadRuntimeConfig({
    ENCRYPTION_KEY,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_MAX: '1000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    HOST: '127.0.0.1',
    PORT: '0',
    ...backend.env,
    ...extra,
    // Experiments: `WORKER_CONCURRENCY=32 pnpm bench pipeline` measures another concurrency.
    ...(process.env.WORKER_CONCURRENCY
      ? { WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY }
      : {}),
  });
}

export interface BenchLogger {
  logger: pino.Logger;
  /** Lines at warn or above so far. */
  warnings(): number;
  /** Stop echoing warnings (during teardown, when refusals of late requests are expected). */
  mute(): void;
}

/**
 * A pino logger at the configured level (info by default: the per-request and per-post lines a
 * deployment writes are part of the cost) that drops the lines, except the first few warnings
 * and errors, which go to stderr.
 */
export function benchLogger(
  name: string,
  level = process.env.BENCH_LOG_LEVEL ?? 'info',
): BenchLogger {
  let warnings = 0;
  let muted = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      // Lines below warn (most of them) are dropped without being decoded: a deployment's
      // cost is pino formatting the line, not this sink reading it.
      const at = chunk.indexOf('"level":');
      if (at < 0 || chunk[at + 8] === 0x31 || chunk[at + 8] === 0x32 || chunk[at + 8] === 0x33) {
        done();
        return;
      }
      const text = chunk.toString('utf8');
      const match = /"level":(\d+)/.exec(text);
      // The unsafe-switch warnings are expected: the benchmarks turn the switches on.
      if (match && Number(match[1]) >= 40 && !text.includes('UNSAFE:') && !muted) {
        warnings += 1;
        if (warnings <= 5) process.stderr.write(`[${name} log] ${text.trim().slice(0, 400)}\n`);
        if (warnings === 6) process.stderr.write(`[${name} log] more warnings not shown\n`);
      }
      done();
    },
  });
  const logger = pino({ level, base: { bench: name } }, sink);
  return {
    logger,
    warnings: () => warnings,
    mute: () => {
      muted = true;
    },
  };
}

export interface SeededUser {
  ctx: AccountContext;
  actor: Actor;
  userId: string;
  rawKey: string;
  connections: Partial<Record<Platform, string>>;
  /** The platforms whose connection is a sandbox one. */
  sandbox: ReadonlySet<Platform>;
}

/**
 * A user (createUser: personal account + API key) with one active sandbox connection per
 * platform: the benchmarks measure the service, and a sandbox target never waits on a platform.
 */
export async function seedUser(deps: CoreDeps, platforms: Platform[]): Promise<SeededUser> {
  const email = `${randomBytes(6).toString('hex')}@bench.test`;
  const seeded = await seedUserWithConnections(deps, platforms, email, { sandbox: platforms });
  const { ctx, actor, rawKey, connections } = seeded;
  return { ctx, actor, userId: seeded.user.id, rawKey, connections, sandbox: new Set(platforms) };
}

export function connectionIds(seeded: SeededUser, platforms: Platform[]): string[] {
  return platforms.map((platform) => {
    const id = seeded.connections[platform];
    if (!id) throw new Error(`no ${platform} connection seeded`);
    return id;
  });
}
