import type { Dispatcher } from 'undici';
import type { PlatformSettingValues } from './descriptor.ts';

/**
 * Plain configuration of the platform publishers, exactly as packages/config reads it:
 * `settings.<platform>` holds the values of that platform's descriptor settings.
 */
export interface PlatformsConfig {
  settings: PlatformSettingValues;
  /** Interval between status polls of platforms that process media asynchronously. Default 5000. */
  pollIntervalMs?: number;
  /** PLATFORM_POLL_TIMEOUT_MS: past it a target fails with platform_timeout. Default 10 min. */
  pollTimeoutMs?: number;
  /** Inactivity bound of one API request (headers and body). Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Dispatcher for fetching media bytes (streamed uploads). The apps pass net-guard's guarded
   * dispatcher; when absent, a guarded one refusing private networks is created.
   */
  mediaDispatcher?: Dispatcher;
  /** Whether `mediaDispatcher` allows private networks (MEDIA_ALLOW_PRIVATE_NETWORKS). Default false. */
  mediaAllowPrivateNetworks?: boolean;
  /** Dispatcher for the platform APIs (trusted base URLs, not guarded). Default: undici's global. */
  apiDispatcher?: Dispatcher;
}

export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_POLL_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
