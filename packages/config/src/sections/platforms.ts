/** The platforms: their declared settings, connecting accounts, and what outbound calls may reach. */
import type { Env } from '../env-readers.ts';
import {
  type PlatformSettingsSource,
  type PlatformSettingValues,
  readPlatformSettings,
} from '../platform-settings.ts';

export interface PlatformsConfig {
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

export function readPlatforms(
  e: Env,
  platforms: readonly PlatformSettingsSource[],
  port: number,
): PlatformsConfig {
  return {
    platforms: {
      settings: readPlatformSettings(e, platforms),
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
  };
}

/** CONNECT_RETURN_ORIGINS: comma-separated http(s) origins, kept as `new URL().origin`. */
function readOrigins(e: Env, value: string | null): string[] {
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
