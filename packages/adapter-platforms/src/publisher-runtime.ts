import type { Dispatcher } from 'undici';

/** What every real publisher needs besides its own section of the config. */
export interface PublisherRuntime {
  apiDispatcher: Dispatcher;
  mediaDispatcher: Dispatcher;
  pollIntervalMs: number;
  pollTimeoutMs: number;
  requestTimeoutMs: number;
}
