import { env as readEnv } from './env-readers.ts';
import { ConfigError } from './errors.ts';

/**
 * The whole runtime configuration, read once from the environment (DESIGN.md section 6).
 * Every value is validated here; a bad one throws ConfigError naming the variable, and the
 * apps print that one line and exit.
 */
export interface Config {
  port: number;
  host: string;
  /** Unset: embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /** Unset: the in-process queue (API and worker in one process). */
  redisUrl: string | null;
  /** null: sized from the process role and WORKER_CONCURRENCY (see app-worker runtime). */
  databasePoolSize: number | null;
  queuePrefix: string;
  dataDir: string;
  /** 32 bytes from ENCRYPTION_KEY (base64); null = generate/keep one in dataDir (embedded). */
  encryptionKey: Buffer | null;
  authJwtSecret: string | null;
  authJwksUrl: string | null;
  bootstrapApiKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  rateLimit: { max: number; windowMs: number };
  idempotencyTtlMs: number;
  worker: {
    concurrency: number;
    maxPublishAttempts: number;
    targetLeaseMs: number;
    reconcileIntervalMs: number;
  };
  platforms: {
    tiktok: {
      baseUrl: string;
      clientKey: string | null;
      clientSecret: string | null;
      photoProxyUrl: string | null;
    };
    instagram: { baseUrl: string; graphVersion: string };
    youtube: {
      baseUrl: string;
      oauthBaseUrl: string;
      clientId: string | null;
      clientSecret: string | null;
    };
    pollIntervalMs: number;
    pollTimeoutMs: number;
  };
  webhookAllowPrivateNetworks: boolean;
  webhookAllowHttp: boolean;
  mediaAllowPrivateNetworks: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const e = readEnv(source);
  const encryptionKeyText = e.string('ENCRYPTION_KEY');
  let encryptionKey: Buffer | null = null;
  if (encryptionKeyText !== null) {
    encryptionKey = Buffer.from(encryptionKeyText, 'base64');
    if (encryptionKey.length !== 32) {
      throw new ConfigError(
        'ENCRYPTION_KEY',
        'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
      );
    }
  }
  const bootstrapApiKey = e.string('BOOTSTRAP_API_KEY');
  if (bootstrapApiKey !== null && !/^sp_[0-9A-Za-z]{40}$/.test(bootstrapApiKey)) {
    throw new ConfigError('BOOTSTRAP_API_KEY', 'must be "sp_" followed by 40 letters or digits');
  }
  return {
    port: e.int('PORT', 3000, 0, 65535),
    host: e.string('HOST') ?? '0.0.0.0',
    databaseUrl: e.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: e.url('REDIS_URL', ['redis:', 'rediss:']),
    databasePoolSize:
      e.string('DATABASE_POOL_SIZE') === null ? null : e.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    queuePrefix: e.string('QUEUE_PREFIX') ?? 'sp',
    dataDir: e.string('DATA_DIR') ?? './.data',
    encryptionKey,
    authJwtSecret: e.string('AUTH_JWT_SECRET'),
    authJwksUrl: e.url('AUTH_JWKS_URL', ['https:', 'http:']),
    bootstrapApiKey,
    logLevel: e.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: e.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    rateLimit: {
      max: e.int('RATE_LIMIT_MAX', 600, 1, 1_000_000),
      windowMs: e.int('RATE_LIMIT_WINDOW_MS', 60_000, 100, 3_600_000),
    },
    idempotencyTtlMs: e.int(
      'IDEMPOTENCY_TTL_MS',
      24 * 3_600_000,
      24 * 3_600_000,
      30 * 24 * 3_600_000,
    ),
    worker: {
      // Publish jobs mostly wait (on platforms' processing polls, on the database): a job slot
      // is cheap, and a low count lets a few slow TikTok/Instagram polls hold up every post.
      concurrency: e.int('WORKER_CONCURRENCY', 32, 1, 1000),
      maxPublishAttempts: e.int('PUBLISH_MAX_ATTEMPTS', 6, 1, 50),
      targetLeaseMs: e.int('TARGET_LEASE_MS', 60_000, 500, 3_600_000),
      reconcileIntervalMs: e.int('RECONCILE_INTERVAL_MS', 5_000, 100, 600_000),
    },
    platforms: {
      tiktok: {
        baseUrl: e.url('TIKTOK_API_BASE_URL', ['https:', 'http:']) ?? 'https://open.tiktokapis.com',
        clientKey: e.string('TIKTOK_CLIENT_KEY'),
        clientSecret: e.string('TIKTOK_CLIENT_SECRET'),
        photoProxyUrl: e.url('TIKTOK_PHOTO_PROXY_URL', ['https:', 'http:']),
      },
      instagram: {
        baseUrl:
          e.url('INSTAGRAM_API_BASE_URL', ['https:', 'http:']) ?? 'https://graph.facebook.com',
        graphVersion: e.matching('INSTAGRAM_GRAPH_VERSION', /^v\d+\.\d+$/, 'v21.0', 'like v21.0'),
      },
      youtube: {
        baseUrl: e.url('YOUTUBE_API_BASE_URL', ['https:', 'http:']) ?? 'https://www.googleapis.com',
        oauthBaseUrl:
          e.url('YOUTUBE_OAUTH_BASE_URL', ['https:', 'http:']) ?? 'https://oauth2.googleapis.com',
        clientId: e.string('YOUTUBE_CLIENT_ID'),
        clientSecret: e.string('YOUTUBE_CLIENT_SECRET'),
      },
      pollIntervalMs: e.int('PLATFORM_POLL_INTERVAL_MS', 5_000, 10, 600_000),
      pollTimeoutMs: e.int('PLATFORM_POLL_TIMEOUT_MS', 10 * 60_000, 100, 24 * 3_600_000),
    },
    webhookAllowPrivateNetworks: e.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookAllowHttp: e.bool('WEBHOOK_ALLOW_HTTP', false),
    mediaAllowPrivateNetworks: e.bool('MEDIA_ALLOW_PRIVATE_NETWORKS', false),
  };
}

/** The development-only switches that weaken a safety check, for a loud warning at start. */
export function unsafeSwitches(config: Config): string[] {
  const on: string[] = [];
  if (config.webhookAllowPrivateNetworks) on.push('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  if (config.webhookAllowHttp) on.push('WEBHOOK_ALLOW_HTTP');
  if (config.mediaAllowPrivateNetworks) on.push('MEDIA_ALLOW_PRIVATE_NETWORKS');
  return on;
}
