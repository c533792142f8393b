import type { Platform, Post } from '@social-publisher/domain';
import type { Dispatcher } from 'undici';

/** How a mocked platform answers in tests: `ok` publishes, the others fail. */
export type MockedBehaviour = 'ok' | 'transient' | 'permanent';

/**
 * Plain configuration of the platform publishers; the apps fill it from the environment
 * (variable names in the README).
 */
export interface PlatformsConfig {
  tiktok: {
    /** TIKTOK_API_BASE_URL, e.g. https://open.tiktokapis.com */
    baseUrl: string;
    /** TIKTOK_CLIENT_KEY / TIKTOK_CLIENT_SECRET: needed to refresh tokens. */
    clientKey?: string;
    clientSecret?: string;
    /** TIKTOK_PHOTO_PROXY_URL: photo URLs are sent as `${proxy}?url=<encoded original>`. */
    photoProxyUrl?: string;
  };
  instagram: {
    /** INSTAGRAM_API_BASE_URL, e.g. https://graph.facebook.com */
    baseUrl: string;
    /** INSTAGRAM_GRAPH_VERSION, e.g. v21.0 (a missing leading `v` is added). */
    graphVersion: string;
  };
  youtube: {
    /** YOUTUBE_API_BASE_URL, e.g. https://www.googleapis.com */
    baseUrl: string;
    /** YOUTUBE_OAUTH_BASE_URL, e.g. https://oauth2.googleapis.com (token endpoint `${it}/token`). */
    oauthBaseUrl: string;
    /** YOUTUBE_CLIENT_ID / YOUTUBE_CLIENT_SECRET: needed to refresh tokens. */
    clientId?: string;
    clientSecret?: string;
  };
  /** Interval between status polls (TikTok, Instagram). Default 5000. */
  pollIntervalMs?: number;
  /** PLATFORM_POLL_TIMEOUT_MS: past it a target fails with platform_timeout. Default 10 min. */
  pollTimeoutMs?: number;
  /** Inactivity bound of one API request (headers and body). Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Dispatcher for fetching media bytes (YouTube uploads). The apps pass net-guard's guarded
   * dispatcher; when absent, a guarded one refusing private networks is created.
   */
  mediaDispatcher?: Dispatcher;
  /** Dispatcher for the platform APIs (trusted base URLs, not guarded). Default: undici's global. */
  apiDispatcher?: Dispatcher;
  /** twitter/linkedin/facebook are mocked; tests choose how each post fares. Default: always ok. */
  mocked?: { behaviour?: (platform: Platform, post: Post) => MockedBehaviour };
}

/** What every real publisher needs besides its own section of the config. */
export interface PublisherRuntime {
  apiDispatcher: Dispatcher;
  mediaDispatcher: Dispatcher;
  pollIntervalMs: number;
  pollTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_POLL_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
