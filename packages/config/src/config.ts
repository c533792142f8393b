/**
 * The whole runtime configuration, read once from the environment (every variable:
 * `.env.example`). Each section of it lives in sections/, its type beside its reader; this file
 * composes them. Every value is validated there; a bad one is reported naming the variable,
 * every problem at once, and the apps print them and exit.
 */
import { env as readEnv } from './env-readers.ts';
import { ConfigError, type ConfigProblem } from './errors.ts';
import type { PlatformSettingsSource } from './platform-settings.ts';
import { type MediaConfig, readMedia } from './sections/media.ts';
import { type MetricsConfig, readMetrics } from './sections/metrics.ts';
import { type OperatorConfig, readOperator } from './sections/operator.ts';
import { type PlatformsConfig, readPlatforms } from './sections/platforms.ts';
import { type RedisConfig, readRedisSection } from './sections/redis.ts';
import { readSecrets, type SecretsConfig } from './sections/secrets.ts';
import { readServer, type ServerConfig } from './sections/server.ts';
import { readStorage, type StorageConfig } from './sections/storage.ts';
import { readTelemetry, type TelemetryConfig } from './sections/telemetry.ts';
import { readWebhooks, type WebhooksConfig } from './sections/webhooks.ts';
import { readWorker, type WorkerConfig } from './sections/worker.ts';

export type { MediaConfig } from './sections/media.ts';
export type { RedisEndpoint } from './sections/redis.ts';
export type { TrustProxy } from './sections/server.ts';
export type { TelemetryConfig, TracesSampler } from './sections/telemetry.ts';

export type Config = ServerConfig &
  StorageConfig &
  RedisConfig &
  SecretsConfig &
  WorkerConfig &
  MetricsConfig &
  WebhooksConfig &
  PlatformsConfig &
  OperatorConfig & {
    /** Tracing: the OTEL_* settings. */
    telemetry: TelemetryConfig;
    /** Hosted media (POST /media): where the bytes live, how large and how long. */
    media: MediaConfig;
  };

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
  const server = readServer(e);
  const storage = readStorage(e);
  const config: Config = {
    ...server,
    ...storage,
    ...readRedisSection(e),
    ...readSecrets(e),
    ...readOperator(e),
    ...readWorker(e),
    ...readMetrics(e),
    ...readWebhooks(e),
    ...readPlatforms(e, options.platforms ?? [], server.port),
    media: readMedia(e, storage.dataDir),
    ...readTelemetry(e),
  };
  const keyNeeded = options.requireEncryptionKey ?? true;
  if (keyNeeded && config.databaseUrl !== null && e.string('ENCRYPTION_KEY') === null) {
    // Checked here, not when the key is first needed, so it is reported with everything else.
    e.report('ENCRYPTION_KEY', 'is required with DATABASE_URL (openssl rand -base64 32)', null);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The tracing settings alone, read before anything else loads (the entry points start tracing
 * first). A bad value throws ConfigError; loadConfig reports it again with every other problem.
 */
export function loadTelemetryConfig(
  source: Record<string, string | undefined> = process.env,
): TelemetryConfig {
  return readTelemetry(readEnv(source)).telemetry;
}

/** The development-only switches that weaken a safety check, for a loud warning at start. */
export function unsafeSwitches(config: Config): string[] {
  const on: string[] = [];
  if (config.webhookAllowPrivateNetworks) on.push('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  if (config.webhookAllowHttp) on.push('WEBHOOK_ALLOW_HTTP');
  if (config.mediaAllowPrivateNetworks) on.push('MEDIA_ALLOW_PRIVATE_NETWORKS');
  return on;
}
