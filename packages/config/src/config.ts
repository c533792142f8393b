import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { env as readEnv } from './env-readers.ts';
import { ConfigError, type ConfigProblem } from './errors.ts';
import {
  type PlatformSettingsSource,
  type PlatformSettingValues,
  readPlatformSettings,
} from './platform-settings.ts';

/**
 * The whole runtime configuration, read once from the environment (every variable: `.env.example`).
 * Every value is validated here; a bad one throws ConfigError naming the variable, and the
 * apps print that one line and exit.
 */
export type RedisEndpoint =
  | { kind: 'url'; url: string }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      /** REDIS_PASSWORD: the nodes' password. */
      password: string | null;
      /** REDIS_TLS: talk TLS to the nodes (managed clusters usually want it). */
      tls: boolean;
    }
  | {
      kind: 'sentinel';
      sentinels: Array<{ host: string; port: number }>;
      /** The monitored master's name. */
      master: string;
      /** REDIS_PASSWORD: the data nodes' password. */
      password: string | null;
      /** REDIS_SENTINEL_PASSWORD: the sentinels' own, when they have one. */
      sentinelPassword: string | null;
      /** REDIS_TLS: talk TLS to the sentinels and the nodes. */
      tls: boolean;
    };

export interface Config {
  port: number;
  host: string;
  /** Unset: embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /** Unset: the in-process queue (API and worker in one process). */
  redisUrl: string | null;
  /**
   * The shared Redis, however it is reached: REDIS_URL, or REDIS_SENTINELS with
   * REDIS_SENTINEL_MASTER (failover through Redis Sentinel). null: the in-process queue.
   */
  redis: RedisEndpoint | null;
  /** null: sized from the process role and WORKER_CONCURRENCY (see packages/runtime). */
  databasePoolSize: number | null;
  /**
   * Hot statements go as named (prepared) ones, planned once per connection. Off behind
   * PgBouncer < 1.21 in transaction pooling, which cannot keep them.
   */
  databasePreparedStatements: boolean;
  /**
   * API-key and connection lookups kept in memory, emptied by PostgreSQL change notices
   * (LISTEN; off by itself where notices do not arrive, e.g. behind PgBouncer in transaction
   * pooling). Embedded PGlite always keeps them.
   */
  databaseLookupCache: boolean;
  /**
   * DATABASE_STARTUP_WAIT_MS: how long a starting process waits for an unreachable PostgreSQL
   * (retrying) before it gives up; 0 = give up at once.
   */
  databaseStartupWaitMs: number;
  queuePrefix: string;
  dataDir: string;
  /** 32 bytes from ENCRYPTION_KEY (base64); null = generate/keep one in dataDir (embedded). */
  encryptionKey: Buffer | null;
  /**
   * ENCRYPTION_KEY_PREVIOUS: keys that still decrypt (comma-separated, base64) while a
   * rotation is under way; only `encryptionKey` encrypts. Empty = none.
   */
  encryptionKeysPrevious: Buffer[];
  /** AUTH_JWT_SECRET: HS256 tokens' secret, at least 32 bytes. */
  authJwtSecret: string | null;
  authJwksUrl: string | null;
  /** AUTH_JWT_ISSUER: when set, a token's `iss` must be exactly this. */
  authJwtIssuer: string | null;
  /** AUTH_JWT_AUDIENCE: when set, a token's `aud` must name this. */
  authJwtAudience: string | null;
  bootstrapApiKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  /**
   * How long a client may take to send a request, so that a slow sender cannot hold a
   * connection: its headers (HTTP_HEADERS_TIMEOUT_MS), then its body (HTTP_BODY_TIMEOUT_MS;
   * HTTP_IMPORT_BODY_TIMEOUT_MS for a CSV import, which may be megabytes;
   * HTTP_MEDIA_BODY_TIMEOUT_MS for a media upload, which may be gigabytes).
   */
  httpTimeouts: { headersMs: number; bodyMs: number; importBodyMs: number; mediaBodyMs: number };
  rateLimit: { max: number; windowMs: number };
  /**
   * Attempts that could be guesses, per client address per RATE_LIMIT_WINDOW_MS, each kind its
   * own budget: failed API-key/JWT authentications, OAuth callbacks, and wrong METRICS_TOKEN
   * and wrong ADMIN_TOKEN attempts (tokenFailures each).
   */
  attemptLimits: { authFailures: number; oauthCallbacks: number; tokenFailures: number };
  /**
   * TRUST_PROXY: whose X-Forwarded-For gives the client's address (the per-address limit of
   * failed credentials and of the OAuth callback). false: nobody's, the connection's address
   * counts; else the proxies' addresses or networks (their X-Forwarded-For is believed).
   */
  trustProxy: TrustProxy;
  idempotencyTtlMs: number;
  /** How much one tenant may create: each refusal names its setting. */
  quotas: {
    /** WEBHOOKS_MAX_PER_ACCOUNT: webhooks one account may hold (default 20). */
    webhooksPerAccount: number;
    /** SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: connections one account may hold (default 500). */
    socialAccountsPerAccount: number;
    /** WORKSPACES_MAX_PER_USER: workspaces one user may own (default 50). */
    workspacesPerUser: number;
  };
  /** BullMQ consumer timings (tests shorten them to recover a killed worker's jobs quickly). */
  queueTuning: {
    /** QUEUE_STALLED_INTERVAL_MS: how often a worker looks for jobs whose worker died. */
    stalledIntervalMs?: number;
    /** QUEUE_LOCK_DURATION_MS: how long a job's lock lives without renewal. */
    lockDurationMs?: number;
  };
  worker: {
    concurrency: number;
    /** WORKER_PROCESSES: worker processes `start:worker` runs, supervised (default: the cores). */
    processes: number;
    maxPublishAttempts: number;
    targetLeaseMs: number;
    reconcileIntervalMs: number;
  };
  /** The shape adapter-platforms' registry takes (PlatformsConfig), without the dispatchers. */
  platforms: {
    /** `settings.<platform>.<key>`: each platform's declared settings (see its descriptor). */
    settings: PlatformSettingValues;
    pollIntervalMs: number;
    pollTimeoutMs: number;
  };
  webhookAllowPrivateNetworks: boolean;
  webhookAllowHttp: boolean;
  mediaAllowPrivateNetworks: boolean;
  /** Hosted media (POST /media): where the bytes live, how large and how long. */
  media: MediaConfig;
  metrics: {
    /** METRICS_TOKEN: GET /metrics on the API's port, with `Authorization: Bearer <token>`. */
    token: string | null;
    /** METRICS_PORT: GET /metrics on a port of its own, no credential (workers too). */
    port: number | null;
  };
  admin: {
    /** ADMIN_TOKEN: the credential of /admin/queues (Bearer, or Basic with it as password). */
    token: string | null;
    /** ADMIN_QUEUES_WRITE: let the dashboard retry, promote and remove jobs (default read-only). */
    queuesWritable: boolean;
  };
  connect: {
    /** PUBLIC_BASE_URL: how browsers reach the API (OAuth redirect URIs are built from it). */
    publicBaseUrl: string;
    /** CONNECT_RETURN_ORIGINS: the only origins a connect flow may send the browser back to. */
    returnOrigins: string[];
    /** TOKEN_REFRESH_MARGIN_MS: tokens expiring within this are renewed ahead. */
    tokenRefreshMarginMs: number;
    /** TOKEN_REFRESH_INTERVAL_MS: how often a worker looks for tokens to renew. */
    tokenRefreshIntervalMs: number;
  };
}

export interface MediaConfig {
  /** MEDIA_STORE: `local` (files under `dir`) or `s3` (any S3-compatible store). */
  store: 'local' | 's3';
  /** MEDIA_DIR: the local store's directory (default: DATA_DIR/media). */
  dir: string;
  /** MEDIA_MAX_BYTES: the largest upload (default 4 GiB). */
  maxBytes: number;
  /** MEDIA_RETENTION_DAYS: kept this long after the last post using a media is finished. */
  retentionDays: number;
  /** MEDIA_QUOTA_BYTES: the bytes one account's media may hold together (default 50 GiB). */
  quotaBytes: number;
  s3: {
    /** MEDIA_S3_BUCKET: required with MEDIA_STORE=s3. */
    bucket: string | null;
    /** MEDIA_S3_ENDPOINT: another store than AWS S3 (MinIO, R2...). */
    endpoint: string | null;
    /** MEDIA_S3_REGION (default us-east-1). */
    region: string;
    /** MEDIA_S3_FORCE_PATH_STYLE: bucket in the path, not the host name (most self-hosted stores). */
    forcePathStyle: boolean;
  };
}

/** See Config.trustProxy; the shape Fastify's `trustProxy` takes. */
export type TrustProxy = false | string[];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface LoadConfigOptions {
  /** The platforms whose declared settings are read (the runtime passes every descriptor). */
  platforms?: readonly PlatformSettingsSource[];
  /**
   * Whether ENCRYPTION_KEY is required with DATABASE_URL (default true). Only tools that never
   * touch tokens (migrations) go without.
   */
  requireEncryptionKey?: boolean;
}

export function loadConfig(
  source: Record<string, string | undefined> = process.env,
  options: LoadConfigOptions = {},
): Config {
  const problems: ConfigProblem[] = [];
  const e = readEnv(source, problems);
  const config = readAll(e, options);
  const keyNeeded = options.requireEncryptionKey ?? true;
  if (keyNeeded && config.databaseUrl !== null && e.string('ENCRYPTION_KEY') === null) {
    // Checked here, not when the key is first needed, so it is reported with everything else.
    e.report('ENCRYPTION_KEY', 'is required with DATABASE_URL (openssl rand -base64 32)', null);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function readEncryptionKey(e: ReturnType<typeof readEnv>): Buffer | null {
  const text = e.string('ENCRYPTION_KEY');
  if (text === null) return null;
  const key = Buffer.from(text, 'base64');
  if (key.length === 32) return key;
  return e.report(
    'ENCRYPTION_KEY',
    'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
    null,
  );
}

function readPreviousEncryptionKeys(e: ReturnType<typeof readEnv>): Buffer[] {
  const text = e.string('ENCRYPTION_KEY_PREVIOUS');
  if (text === null) return [];
  const keys = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => Buffer.from(part, 'base64'));
  if (keys.every((key) => key.length === 32)) return keys;
  return e.report(
    'ENCRYPTION_KEY_PREVIOUS',
    'must be keys of 32 bytes encoded as base64, separated by commas',
    [],
  );
}

function readBootstrapKey(e: ReturnType<typeof readEnv>): string | null {
  const key = e.string('BOOTSTRAP_API_KEY');
  if (key === null || /^sp_[0-9A-Za-z]{40}$/.test(key)) return key;
  return e.report('BOOTSTRAP_API_KEY', 'must be "sp_" followed by 40 letters or digits', null);
}

function readAll(e: ReturnType<typeof readEnv>, options: LoadConfigOptions): Config {
  const encryptionKey = readEncryptionKey(e);
  const bootstrapApiKey = readBootstrapKey(e);
  const port = e.int('PORT', 3000, 0, 65535);
  const redisUrl = e.url('REDIS_URL', ['redis:', 'rediss:']);
  return {
    port,
    // The embedded mode (no DATABASE_URL) is for one machine: reachable from it only unless
    // HOST says otherwise. Production processes run behind a load balancer or in containers.
    host: e.string('HOST') ?? (e.string('DATABASE_URL') === null ? '127.0.0.1' : '0.0.0.0'),
    databaseUrl: e.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl,
    redis: readRedis(e, redisUrl),
    databasePoolSize:
      e.string('DATABASE_POOL_SIZE') === null ? null : e.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    databasePreparedStatements: e.bool('DATABASE_PREPARED_STATEMENTS', true),
    databaseLookupCache: e.bool('DATABASE_LOOKUP_CACHE', true),
    databaseStartupWaitMs: e.int('DATABASE_STARTUP_WAIT_MS', 30_000, 0, 600_000),
    queuePrefix: e.string('QUEUE_PREFIX') ?? 'sp',
    dataDir: e.string('DATA_DIR') ?? './.data',
    encryptionKey,
    encryptionKeysPrevious: readPreviousEncryptionKeys(e),
    ...readJwt(e),
    bootstrapApiKey,
    logLevel: e.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: e.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    httpTimeouts: {
      headersMs: e.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      bodyMs: e.int('HTTP_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      importBodyMs: e.int('HTTP_IMPORT_BODY_TIMEOUT_MS', 300_000, 100, 3_600_000),
      mediaBodyMs: e.int('HTTP_MEDIA_BODY_TIMEOUT_MS', 3_600_000, 100, 86_400_000),
    },
    rateLimit: {
      max: e.int('RATE_LIMIT_MAX', 600, 1, 1_000_000),
      windowMs: e.int('RATE_LIMIT_WINDOW_MS', 60_000, 100, 3_600_000),
    },
    attemptLimits: {
      authFailures: e.int('RATE_LIMIT_AUTH_FAILURES', 30, 1, 1_000_000),
      oauthCallbacks: e.int('RATE_LIMIT_OAUTH_CALLBACKS', 60, 1, 1_000_000),
      tokenFailures: e.int('RATE_LIMIT_TOKEN_FAILURES', 10, 1, 1_000_000),
    },
    trustProxy: readTrustProxy(e),
    idempotencyTtlMs: e.int(
      'IDEMPOTENCY_TTL_MS',
      24 * 3_600_000,
      24 * 3_600_000,
      30 * 24 * 3_600_000,
    ),
    quotas: {
      webhooksPerAccount: e.int('WEBHOOKS_MAX_PER_ACCOUNT', 20, 1, 1_000_000),
      socialAccountsPerAccount: e.int('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT', 500, 1, 1_000_000),
      workspacesPerUser: e.int('WORKSPACES_MAX_PER_USER', 50, 1, 1_000_000),
    },
    queueTuning: {
      ...optionalMs(e, 'QUEUE_STALLED_INTERVAL_MS', 'stalledIntervalMs'),
      ...optionalMs(e, 'QUEUE_LOCK_DURATION_MS', 'lockDurationMs'),
    },
    worker: {
      // Publish jobs mostly wait (on platforms' processing polls, on the database): a job slot
      // is cheap, and a low count lets a few slow platform processing polls hold up every post.
      concurrency: e.int('WORKER_CONCURRENCY', 32, 1, 1000),
      // One process uses one core; the database and Redis may need the others, so this is a
      // ceiling the operator lowers, not a floor.
      processes: e.int('WORKER_PROCESSES', availableParallelism(), 1, 64),
      maxPublishAttempts: e.int('PUBLISH_MAX_ATTEMPTS', 6, 1, 50),
      targetLeaseMs: e.int('TARGET_LEASE_MS', 60_000, 500, 3_600_000),
      reconcileIntervalMs: e.int('RECONCILE_INTERVAL_MS', 5_000, 100, 600_000),
    },
    platforms: {
      settings: readPlatformSettings(e, options.platforms ?? []),
      pollIntervalMs: e.int('PLATFORM_POLL_INTERVAL_MS', 5_000, 10, 600_000),
      pollTimeoutMs: e.int('PLATFORM_POLL_TIMEOUT_MS', 10 * 60_000, 100, 24 * 3_600_000),
    },
    connect: {
      publicBaseUrl:
        e.url('PUBLIC_BASE_URL', ['https:', 'http:']) ??
        `http://127.0.0.1:${port === 0 ? 3000 : port}`,
      returnOrigins: readOrigins(e, e.string('CONNECT_RETURN_ORIGINS')),
      tokenRefreshMarginMs: e.int(
        'TOKEN_REFRESH_MARGIN_MS',
        15 * 60_000,
        60_000,
        7 * 24 * 3_600_000,
      ),
      tokenRefreshIntervalMs: e.int('TOKEN_REFRESH_INTERVAL_MS', 60_000, 100, 3_600_000),
    },
    webhookAllowPrivateNetworks: e.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookAllowHttp: e.bool('WEBHOOK_ALLOW_HTTP', false),
    mediaAllowPrivateNetworks: e.bool('MEDIA_ALLOW_PRIVATE_NETWORKS', false),
    media: readMedia(e, e.string('DATA_DIR') ?? './.data'),
    metrics: {
      token: readToken(e, 'METRICS_TOKEN'),
      port: e.string('METRICS_PORT') === null ? null : e.int('METRICS_PORT', 0, 0, 65535),
    },
    admin: {
      token: readToken(e, 'ADMIN_TOKEN'),
      queuesWritable: e.bool('ADMIN_QUEUES_WRITE', false),
    },
  };
}

const GIB = 1024 ** 3;

/** MEDIA_*: the hosted media's store and limits; MEDIA_S3_BUCKET is required with s3. */
function readMedia(e: ReturnType<typeof readEnv>, dataDir: string): MediaConfig {
  const store = e.oneOf('MEDIA_STORE', ['local', 's3'] as const, 'local');
  const bucket = e.string('MEDIA_S3_BUCKET');
  if (store === 's3' && bucket === null) {
    e.report('MEDIA_S3_BUCKET', 'is required with MEDIA_STORE=s3', null);
  }
  return {
    store,
    dir: e.string('MEDIA_DIR') ?? `${dataDir.replace(/\/+$/, '')}/media`,
    maxBytes: e.int('MEDIA_MAX_BYTES', 4 * GIB, 1, 1024 * GIB),
    retentionDays: e.int('MEDIA_RETENTION_DAYS', 30, 1, 3650),
    quotaBytes: e.int('MEDIA_QUOTA_BYTES', 50 * GIB, 1, 1024 * 1024 * GIB),
    s3: {
      bucket,
      endpoint: e.url('MEDIA_S3_ENDPOINT', ['https:', 'http:']),
      region: e.string('MEDIA_S3_REGION') ?? 'us-east-1',
      forcePathStyle: e.bool('MEDIA_S3_FORCE_PATH_STYLE', false),
    },
  };
}

/** `host:port,host:port,...` as a list, or the problem with it (reported under `name`). */
function readHostPorts(
  e: ReturnType<typeof readEnv>,
  name: string,
  list: string,
): Array<{ host: string; port: number }> | null {
  const hosts: Array<{ host: string; port: number }> = [];
  for (const entry of list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([^:\s]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) {
      return e.report(name, `must be host:port,host:port..., got "${entry}"`, null);
    }
    hosts.push({ host: match[1], port });
  }
  if (hosts.length === 0) return e.report(name, 'must list at least one host:port', null);
  return hosts;
}

/**
 * REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS + REDIS_SENTINEL_MASTER: three ways to
 * reach the shared Redis, one at a time.
 */
function readRedis(e: ReturnType<typeof readEnv>, url: string | null): RedisEndpoint | null {
  const clusterList = e.string('REDIS_CLUSTER_NODES');
  const list = e.string('REDIS_SENTINELS');
  const master = e.string('REDIS_SENTINEL_MASTER');
  const password = e.string('REDIS_PASSWORD');
  const sentinelPassword = e.string('REDIS_SENTINEL_PASSWORD');
  const tls = e.bool('REDIS_TLS', false);
  const ways = [url, clusterList, list].filter((value) => value !== null).length;
  if (ways > 1) {
    return e.report(
      'REDIS_URL',
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS are three ways to reach Redis: set one',
      null,
    );
  }
  if (clusterList !== null) {
    const nodes = readHostPorts(e, 'REDIS_CLUSTER_NODES', clusterList);
    return nodes === null ? null : { kind: 'cluster', nodes, password, tls };
  }
  if (list === null) {
    if (master !== null) e.report('REDIS_SENTINEL_MASTER', 'goes with REDIS_SENTINELS', null);
    return url === null ? null : { kind: 'url', url };
  }
  const sentinels = readHostPorts(e, 'REDIS_SENTINELS', list);
  if (sentinels === null) return null;
  if (master === null) {
    return e.report(
      'REDIS_SENTINEL_MASTER',
      'is required with REDIS_SENTINELS (the master name the sentinels monitor)',
      null,
    );
  }
  return { kind: 'sentinel', sentinels, master, password, sentinelPassword, tls };
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** `a.b.c.d`, an IPv6 address, either with `/prefix`, or a keyword proxy-addr knows. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_KEYWORDS.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: unset or false (nobody), or a comma list of the proxies' addresses, networks
 * and proxy-addr's keywords. Refused: `true` (every hop trusted) and a count of hops (Fastify
 * cannot check the immediate peer with one, and trusts nobody): either would let a client that
 * reaches the API directly choose its own address, and so its own failed-credential budget.
 */
function readTrustProxy(e: ReturnType<typeof readEnv>): TrustProxy {
  const value = e.string('TRUST_PROXY');
  if (value === null || ['false', 'no', 'off', '0'].includes(value.toLowerCase())) return false;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !isProxyEntry(entry));
  if (bad === undefined && entries.length > 0) return entries;
  const why = ['true', 'yes', 'on', '1'].includes(value.toLowerCase())
    ? 'true would let any client choose its address with X-Forwarded-For'
    : /^\d+$/.test(value)
      ? 'a count of proxies would let a client that reaches the API directly choose its address'
      : `"${bad ?? value}" is not an address, a network or a keyword`;
  return e.report(
    'TRUST_PROXY',
    `must list the proxies in front of the API: addresses, networks (10.0.0.0/8) or loopback, linklocal, uniquelocal; ${why}`,
    false,
  );
}

/** HS256's key is as strong as the secret: shorter than its 32-byte hash, it can be guessed. */
const MIN_JWT_SECRET_BYTES = 32;

/** How user JWTs are verified: the secret or key set, and the claims every token must carry. */
function readJwt(
  e: ReturnType<typeof readEnv>,
): Pick<Config, 'authJwtSecret' | 'authJwksUrl' | 'authJwtIssuer' | 'authJwtAudience'> {
  let secret = e.string('AUTH_JWT_SECRET');
  const bytes = secret === null ? 0 : Buffer.byteLength(secret, 'utf8');
  if (secret !== null && bytes < MIN_JWT_SECRET_BYTES) {
    secret = e.report(
      'AUTH_JWT_SECRET',
      `must be at least ${MIN_JWT_SECRET_BYTES} bytes, got ${bytes} (openssl rand -base64 48)`,
      null,
    );
  }
  const jwksUrl = e.url('AUTH_JWKS_URL', ['https:', 'http:']);
  const issuer = e.string('AUTH_JWT_ISSUER');
  const audience = e.string('AUTH_JWT_AUDIENCE');
  const jwtOn = e.string('AUTH_JWT_SECRET') !== null || e.string('AUTH_JWKS_URL') !== null;
  for (const [name, value] of [
    ['AUTH_JWT_ISSUER', issuer],
    ['AUTH_JWT_AUDIENCE', audience],
  ] as const) {
    if (value !== null && !jwtOn)
      e.report(name, 'goes with AUTH_JWT_SECRET or AUTH_JWKS_URL', null);
  }
  return {
    authJwtSecret: secret,
    authJwksUrl: jwksUrl,
    authJwtIssuer: issuer,
    authJwtAudience: audience,
  };
}

/** A shared secret an operator sets: long enough that guessing it is not a plan. */
function readToken(e: ReturnType<typeof readEnv>, name: string): string | null {
  const value = e.string(name);
  if (value === null || value.length >= 16) return value;
  return e.report(name, `must be at least 16 characters, got ${value.length}`, null);
}

/** An optional duration (unset: the library's default), as `{ [key]: ms }` or nothing. */
function optionalMs<K extends string>(
  e: ReturnType<typeof readEnv>,
  name: string,
  key: K,
): Partial<Record<K, number>> {
  if (e.string(name) === null) return {};
  return { [key]: e.int(name, 0, 100, 3_600_000) } as Partial<Record<K, number>>;
}

/** CONNECT_RETURN_ORIGINS: comma-separated http(s) origins, kept as `new URL().origin`. */
function readOrigins(e: ReturnType<typeof readEnv>, value: string | null): string[] {
  if (value === null) return [];
  const origins: string[] = [];
  for (const entry of value.split(',').map((item) => item.trim())) {
    if (entry === '') continue;
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {
      url = null;
    }
    const isOrigin =
      url !== null &&
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.pathname.length <= 1 &&
      !url.search &&
      !url.hash;
    if (url === null || !isOrigin) {
      const why = url === null ? '' : ' (no path)';
      e.report(
        'CONNECT_RETURN_ORIGINS',
        `"${entry}" is not an origin like https://app.example.com${why}`,
        null,
      );
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}

/** The development-only switches that weaken a safety check, for a loud warning at start. */
export function unsafeSwitches(config: Config): string[] {
  const on: string[] = [];
  if (config.webhookAllowPrivateNetworks) on.push('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  if (config.webhookAllowHttp) on.push('WEBHOOK_ALLOW_HTTP');
  if (config.mediaAllowPrivateNetworks) on.push('MEDIA_ALLOW_PRIVATE_NETWORKS');
  return on;
}
