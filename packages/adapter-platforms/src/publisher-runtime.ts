import type { Dispatcher } from 'undici';

/** What every real publisher needs besides its own section of the config. */
export interface PublisherRuntime {
  apiDispatcher: Dispatcher;
  mediaDispatcher: Dispatcher;
  /**
   * MEDIA_ALLOW_PRIVATE_NETWORKS: the media dispatcher reaches private and loopback addresses
   * (tests, local development); absent: no. A user-given server (a Mastodon instance) may then be plain http.
   */
  mediaAllowPrivateNetworks?: boolean;
  pollIntervalMs: number;
  pollTimeoutMs: number;
  requestTimeoutMs: number;
}
