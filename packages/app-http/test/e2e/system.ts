/**
 * The whole service for the end-to-end tests, as `pnpm start` / `start:api` + `start:worker`
 * wire it: loadRuntimeConfig -> createRuntime -> bootstrap -> buildApp listening on a real socket ->
 * startWorker. Every platform adapter is real and points at the testkit's fake servers; media
 * comes from the testkit media server; webhooks go to a local verifying receiver.
 *
 * - production: a fresh PostgreSQL database (createTestDatabase) + BullMQ on the real Redis
 *   under a unique prefix; the API on a runtime of role `api`, the worker on its own runtime of
 *   role `worker` (two processes' worth of wiring sharing the database and the queue).
 * - embedded: PGlite in a temporary DATA_DIR + the in-process queue; one runtime of role
 *   `embedded` serves both the API and the worker (no ENCRYPTION_KEY: the embedded mode keeps
 *   its own).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Config } from '@social-publisher/config';
import {
  createRuntime,
  loadRuntimeConfig,
  type ProcessMetrics,
  type Runtime,
  startWorker,
  type Worker,
} from '@social-publisher/runtime';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import {
  type FakeDiscord,
  type FakeFacebook,
  type FakeGoogleBusiness,
  type FakeInstagram,
  type FakeLinkedin,
  type FakeMastodon,
  type FakePinterest,
  type FakeReddit,
  type FakeTelegram,
  type FakeThreads,
  type FakeTiktok,
  type FakeTiktokOptions,
  type FakeX,
  type FakeXOptions,
  type FakeYoutube,
  type MediaServer,
  startFakeDiscord,
  startFakeFacebook,
  startFakeGoogleBusiness,
  startFakeInstagram,
  startFakeLinkedin,
  startFakeMastodon,
  startFakePinterest,
  startFakeReddit,
  startFakeTelegram,
  startFakeThreads,
  startFakeTiktok,
  startFakeX,
  startFakeYoutube,
  startMediaServer,
} from '../../../testkit/src/index.ts';
import { buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/bootstrap.ts';
import { type Receiver, startReceiver } from './receiver.ts';

export type Mode = 'production' | 'embedded';

export const REDIS_URL = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Api {
  baseUrl: string;
  /** The Authorization header value of the test user's key (for non-JSON requests). */
  authorization(): string;
  /** One request with the test user's API key, JSON in and out. */
  call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<T>>;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface System {
  mode: Mode;
  api: Api;
  tiktok: FakeTiktok;
  instagram: FakeInstagram;
  youtube: FakeYoutube;
  x: FakeX;
  facebook: FakeFacebook;
  linkedin: FakeLinkedin;
  pinterest: FakePinterest;
  threads: FakeThreads;
  /** One Mastodon instance (users name it when connecting: no settings point at it). */
  mastodon: FakeMastodon;
  reddit: FakeReddit;
  /** Google Business Profile: OAuth, accounts, locations and local posts on one fake. */
  googleBusiness: FakeGoogleBusiness;
  /** Telegram's Bot API and Discord's webhooks (connected by credentials, no OAuth). */
  telegram: FakeTelegram;
  discord: FakeDiscord;
  media: MediaServer;
  receiver: Receiver;
  /** The runtime the worker consumes with (embedded: also the API's). */
  worker: Worker;
  /** The API runtime's core (to make its storage fail on purpose). */
  deps: Runtime['deps'];
  /** The worker runtime's metrics (embedded: the API's too). */
  workerMetrics: ProcessMetrics;
  /** The user created by bootstrap (its personal account id is its user id). */
  userId: string;
  /** Every line logged by the runtimes and the app. */
  logs: LogLine[];
  /** MEDIA_DIR: the local store's directory. */
  mediaDir: string;
  /** DATA_DIR of the embedded mode (null in production). */
  dataDir: string | null;
  /** What each fake platform and the media server received: to check that nothing reached them. */
  fakes(): Array<{
    name: string;
    requests: Array<{ path: string; query: unknown; body: unknown }>;
  }>;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it returns something truthy; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(everyMs);
  }
}

function memoryLogger(name: string): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const echo = process.env.TEST_LOGS !== undefined;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        lines.push(JSON.parse(line) as LogLine);
        if (echo) process.stderr.write(`[${name}] ${line}\n`);
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug', base: { test: name } }, sink), lines };
}

// ---------------------------------------------------------------- Redis keys of a prefix

let prefixes = 0;
/** A fresh queue prefix (braces: a Redis Cluster hash tag). */
export function uniquePrefix(label: string): string {
  prefixes += 1;
  return `{sp-test-e2e-${label}-${process.pid}-${Date.now().toString(36)}-${prefixes}}`;
}

async function withRedis<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Why Redis cannot be used, or undefined when it answers PING. */
export async function redisUnavailable(): Promise<string | undefined> {
  try {
    const pong = await withRedis((redis) => redis.ping());
    return pong === 'PONG' ? undefined : `unexpected PING reply ${pong}`;
  } catch (error) {
    return `no Redis at ${REDIS_URL}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Every key starting with `prefix`. */
export function listKeys(prefix: string): Promise<string[]> {
  return withRedis(async (redis) => {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys;
  });
}

/** Deletes every key starting with `prefix`. */
export async function deleteKeys(prefix: string): Promise<void> {
  const keys = await listKeys(prefix);
  if (keys.length === 0) return;
  await withRedis(async (redis) => {
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  });
}

/** Why this mode cannot run here (no PostgreSQL / Redis for production), or undefined. */
export async function unavailable(
  mode: Mode,
  database: { skipReason?: string | undefined },
): Promise<string | undefined> {
  if (mode === 'embedded') return undefined;
  return database.skipReason ?? (await redisUnavailable());
}

// ---------------------------------------------------------------- the system

/** Per-request timings short enough for tests; everything else is the production default. */
const FAST = {
  PLATFORM_POLL_INTERVAL_MS: '50',
  RECONCILE_INTERVAL_MS: '300',
  WORKER_CONCURRENCY: '4',
  // Every test polls GET /posts/:id; the default 600/min would be a test artefact.
  RATE_LIMIT_MAX: '100000',
  // One test system connects every OAuth network, several times each, from one address: the
  // per-address budget of consent links and callbacks (60 a minute) would be a test artefact.
  RATE_LIMIT_OAUTH_CALLBACKS: '100000',
  // Pacing at the platforms' real limits (TikTok 6 a minute) would make every burst of posts to
  // one fake connection take minutes; e2e-pacing.test.ts, where pacing is the subject, sets its own.
  TIKTOK_RATE_LIMIT: 'off',
  X_RATE_LIMIT: 'off',
  INSTAGRAM_RATE_LIMIT: 'off',
  LINKEDIN_RATE_LIMIT: 'off',
  PINTEREST_RATE_LIMIT: 'off',
  THREADS_RATE_LIMIT: 'off',
  MASTODON_RATE_LIMIT: 'off',
  REDDIT_RATE_LIMIT: 'off',
  GOOGLE_BUSINESS_RATE_LIMIT: 'off',
  TELEGRAM_RATE_LIMIT: 'off',
  DISCORD_RATE_LIMIT: 'off',
} as const;

/** GET /metrics's credential in these tests. */
export const METRICS_TOKEN = 'metrics-token-for-e2e-tests';

/** How browsers reach the API in these tests (not resolvable: the test forwards callbacks). */
export const PUBLIC_BASE_URL = 'http://api.connect.test';
/** The client app a connect flow returns to. */
export const RETURN_ORIGIN = 'https://app.example.com';

/** P_CLIENT_ID, P_CLIENT_SECRET and the three hosts of one platform, all on its fake. */
export function oauthEnv(
  prefix: string,
  baseUrl: string,
  client: { clientId: string; clientSecret: string },
): Record<string, string> {
  return {
    [`${prefix}_CLIENT_ID`]: client.clientId,
    [`${prefix}_CLIENT_SECRET`]: client.clientSecret,
    [`${prefix}_AUTH_BASE_URL`]: baseUrl,
    [`${prefix}_TOKEN_BASE_URL`]: baseUrl,
    [`${prefix}_API_BASE_URL`]: baseUrl,
  };
}

export interface StartOptions {
  mode: Mode;
  /** Extra environment for this system (e.g. token renewal timings). */
  env?: Record<string, string>;
  /** production: the database to use (from createTestDatabase). */
  databaseUrl?: string;
  /** Options of the fake platforms (e.g. rate limits). */
  fakes?: { tiktok?: FakeTiktokOptions; x?: FakeXOptions };
}

export async function startSystem(options: StartOptions): Promise<System> {
  const { mode } = options;
  const cleanups: Array<() => Promise<void> | void> = [];
  const close = async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'e2e cleanup failed');
  };

  try {
    const [
      tiktok,
      instagram,
      youtube,
      x,
      facebook,
      linkedin,
      pinterest,
      threads,
      mastodon,
      reddit,
      googleBusiness,
      telegram,
      discord,
      media,
      receiver,
    ] = await Promise.all([
      startFakeTiktok(options.fakes?.tiktok),
      startFakeInstagram(),
      startFakeYoutube(),
      startFakeX(options.fakes?.x),
      startFakeFacebook(),
      startFakeLinkedin(),
      startFakePinterest(),
      startFakeThreads(),
      startFakeMastodon(),
      startFakeReddit(),
      startFakeGoogleBusiness(),
      startFakeTelegram(),
      startFakeDiscord(),
      startMediaServer(),
      startReceiver(),
    ]);
    cleanups.push(
      () => tiktok.close(),
      () => x.close(),
      () => facebook.close(),
      () => linkedin.close(),
      () => pinterest.close(),
      () => threads.close(),
      () => mastodon.close(),
      () => reddit.close(),
      () => googleBusiness.close(),
      () => telegram.close(),
      () => discord.close(),
      () => instagram.close(),
      () => youtube.close(),
      () => media.close(),
      () => receiver.close(),
    );

    const env: Record<string, string> = {
      ...FAST,
      LOG_LEVEL: 'debug',
      HOST: '127.0.0.1',
      PORT: '0',
      TIKTOK_API_BASE_URL: tiktok.baseUrl,
      TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
      INSTAGRAM_API_BASE_URL: instagram.baseUrl,
      YOUTUBE_API_BASE_URL: youtube.baseUrl,
      YOUTUBE_OAUTH_BASE_URL: youtube.baseUrl,
      // Connecting accounts: every platform's three hosts are its fake (docs/connect.md#configuration).
      ...oauthEnv('TIKTOK', tiktok.baseUrl, tiktok.oauth.options),
      ...oauthEnv('YOUTUBE', youtube.baseUrl, youtube.oauth.options),
      ...oauthEnv('X', x.baseUrl, x.oauth.options),
      ...oauthEnv('INSTAGRAM', instagram.baseUrl, instagram.oauth.options),
      ...oauthEnv('FACEBOOK', facebook.baseUrl, facebook.oauth.options),
      ...oauthEnv('LINKEDIN', linkedin.baseUrl, linkedin.oauth.options),
      ...oauthEnv('PINTEREST', pinterest.baseUrl, pinterest.oauth.options),
      ...oauthEnv('THREADS', threads.baseUrl, threads.oauth.options),
      // Reddit's token endpoint is on its auth host (it has no token host of its own).
      REDDIT_CLIENT_ID: reddit.oauth.options.clientId,
      REDDIT_CLIENT_SECRET: reddit.oauth.options.clientSecret,
      REDDIT_AUTH_BASE_URL: reddit.baseUrl,
      REDDIT_API_BASE_URL: reddit.baseUrl,
      // Google Business Profile's accounts and locations APIs have hosts of their own.
      ...oauthEnv('GOOGLE_BUSINESS', googleBusiness.baseUrl, googleBusiness.oauth.options),
      GOOGLE_BUSINESS_ACCOUNTS_BASE_URL: googleBusiness.baseUrl,
      GOOGLE_BUSINESS_LOCATIONS_BASE_URL: googleBusiness.baseUrl,
      TELEGRAM_API_BASE_URL: telegram.baseUrl,
      DISCORD_API_BASE_URL: discord.baseUrl,
      // Browsers reach the API here; the test sends the callback to the real port itself.
      PUBLIC_BASE_URL: PUBLIC_BASE_URL,
      CONNECT_RETURN_ORIGINS: RETURN_ORIGIN,
      ...options.env,
      MEDIA_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    // Hosted media on local disk, in a directory of this system's own (the API and the worker
    // runtimes of the production mode share it, as they would share a volume).
    const mediaDir = mkdtempSync(join(tmpdir(), 'sp-e2e-media-'));
    cleanups.push(() => rmSync(mediaDir, { recursive: true, force: true }));
    env.MEDIA_DIR ??= mediaDir;
    if (mode === 'production') {
      if (!options.databaseUrl) throw new Error('production mode needs a database URL');
      const prefix = uniquePrefix('production');
      // Registered before anything can write under the prefix; runs after every close below.
      cleanups.push(async () => {
        await deleteKeys(prefix);
        const left = await listKeys(prefix);
        if (left.length > 0) throw new Error(`Redis keys left under ${prefix}: ${left.join(', ')}`);
      });
      Object.assign(env, {
        DATABASE_URL: options.databaseUrl,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
    } else if (options.env?.DATA_DIR) {
      // The caller's own directory (it removes it).
      env.DATA_DIR = options.env.DATA_DIR;
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'sp-e2e-embedded-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      env.DATA_DIR = dataDir;
    }
    const config: Config = loadRuntimeConfig(env);
    const { logger, lines } = memoryLogger(mode);

    // The runtimes, as main.ts (API) and app-worker's main.ts (worker) create them.
    let apiRuntime: Runtime;
    let worker: Worker;
    let workerMetrics: ProcessMetrics;
    if (mode === 'production') {
      apiRuntime = await createRuntime(config, logger.child({ name: 'api' }), { role: 'api' });
      cleanups.push(() => apiRuntime.close());
      const workerRuntime = await createRuntime(config, logger.child({ name: 'worker' }), {
        role: 'worker',
      });
      worker = await startWorker(workerRuntime, config);
      workerMetrics = workerRuntime.metrics;
      cleanups.push(() => worker.stop()); // also closes workerRuntime
    } else {
      apiRuntime = await createRuntime(config, logger.child({ name: 'embedded' }), {
        role: 'embedded',
      });
      worker = await startWorker(apiRuntime, config);
      workerMetrics = apiRuntime.metrics;
      cleanups.push(() => worker.stop()); // closes the one runtime
    }
    if (apiRuntime.queueKind !== (mode === 'production' ? 'redis' : 'inprocess')) {
      throw new Error(`unexpected queue kind ${apiRuntime.queueKind}`);
    }
    if (apiRuntime.databaseKind !== (mode === 'production' ? 'postgres' : 'pglite')) {
      throw new Error(`unexpected database kind ${apiRuntime.databaseKind}`);
    }

    // On an empty database bootstrap creates the first user and hands out its key once.
    const first = await bootstrap(apiRuntime.deps, config.bootstrapApiKey);
    if (first.kind !== 'first-user') throw new Error(`bootstrap: ${first.kind}`);

    const app: FastifyInstance = await buildApp({
      deps: apiRuntime.deps,
      checks: apiRuntime.checks,
      queueKind: apiRuntime.queueKind,
      config,
      logger: logger.child({ name: 'http' }),
      rateLimitRedis: apiRuntime.rateLimitRedis,
      metrics: apiRuntime.metrics,
      metricsToken: METRICS_TOKEN,
      // As main.ts wires it: the dashboard when ADMIN_TOKEN is set.
      adminQueues: config.admin.token
        ? {
            dashboard: apiRuntime.queueDashboard,
            token: config.admin.token,
            writable: config.admin.queuesWritable,
          }
        : null,
    });
    await app.listen({ port: config.port, host: config.host });
    // Closed first: no request in flight while the worker and the runtimes stop.
    cleanups.push(() => app.close());
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('the API has no port');
    const baseUrl = `http://127.0.0.1:${address.port}`;

    let key = first.rawKey;
    const call: Api['call'] = async <T>(
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text === '' ? null : JSON.parse(text)) as T,
      };
    };
    // From here on, a key created through the API (not the bootstrap one) does everything.
    const created = await call<{ data: { key: string } }>('POST', '/api-keys', { name: 'e2e' });
    if (created.status !== 201) throw new Error(`POST /api-keys: ${created.status}`);
    key = created.body.data.key;

    return {
      mode,
      api: { baseUrl, call, authorization: () => `Bearer ${key}` },
      tiktok,
      instagram,
      youtube,
      x,
      facebook,
      linkedin,
      pinterest,
      threads,
      mastodon,
      reddit,
      googleBusiness,
      telegram,
      discord,
      media,
      receiver,
      worker,
      deps: apiRuntime.deps,
      workerMetrics,
      userId: first.userId,
      logs: lines,
      mediaDir: env.MEDIA_DIR,
      dataDir: mode === 'embedded' ? (env.DATA_DIR ?? null) : null,
      fakes: () => [
        { name: 'tiktok', requests: tiktok.requests },
        { name: 'instagram', requests: instagram.requests },
        { name: 'youtube', requests: youtube.requests },
        { name: 'x', requests: x.requests },
        { name: 'facebook', requests: facebook.requests },
        { name: 'linkedin', requests: linkedin.requests },
        { name: 'pinterest', requests: pinterest.requests },
        { name: 'threads', requests: threads.requests },
        { name: 'mastodon', requests: mastodon.requests },
        { name: 'reddit', requests: reddit.requests },
        { name: 'google_business', requests: googleBusiness.requests },
        { name: 'telegram', requests: telegram.requests },
        { name: 'discord', requests: discord.requests },
        { name: 'media', requests: media.requests },
      ],
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
