import type { Platform, PlatformPublisher, PlatformRegistry } from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { getGlobalDispatcher } from 'undici';
import {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type PlatformsConfig,
  type PublisherRuntime,
} from './config.ts';
import { createInstagramPublisher } from './instagram/index.ts';
import { createMockedPublisher } from './mocked/index.ts';
import { createTiktokPublisher } from './tiktok/index.ts';
import { createYoutubePublisher } from './youtube/index.ts';

type Factory = (config: PlatformsConfig, runtime: PublisherRuntime) => PlatformPublisher;

/**
 * One line per platform. Adding a platform = one folder exporting its publisher factory + one
 * line here (the Record type makes a platform of the domain without a line a type error).
 */
const PUBLISHERS: Record<Platform, Factory> = {
  tiktok: (config, runtime) => createTiktokPublisher(config.tiktok, runtime),
  instagram: (config, runtime) => createInstagramPublisher(config.instagram, runtime),
  youtube: (config, runtime) => createYoutubePublisher(config.youtube, runtime),
  twitter: (config) => createMockedPublisher('twitter', config.mocked?.behaviour),
  linkedin: (config) => createMockedPublisher('linkedin', config.mocked?.behaviour),
  facebook: (config) => createMockedPublisher('facebook', config.mocked?.behaviour),
};

export function createPlatformRegistry(config: PlatformsConfig): PlatformRegistry {
  const runtime: PublisherRuntime = {
    apiDispatcher: config.apiDispatcher ?? getGlobalDispatcher(),
    // Media URLs come from users: never fetched without the SSRF guard.
    mediaDispatcher:
      config.mediaDispatcher ?? createGuardedDispatcher({ allowPrivateNetworks: false }),
    pollIntervalMs: config.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    pollTimeoutMs: config.pollTimeoutMs ?? DEFAULT_POLL_TIMEOUT_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  const publishers = new Map<Platform, PlatformPublisher>();
  for (const [platform, factory] of Object.entries(PUBLISHERS) as [Platform, Factory][]) {
    publishers.set(platform, factory(config, runtime));
  }
  return { get: (platform) => publishers.get(platform) };
}
