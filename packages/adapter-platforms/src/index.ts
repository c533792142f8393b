export type { MockedBehaviour, PlatformsConfig, PublisherRuntime } from './config.ts';
export {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './config.ts';
export { createInstagramPublisher, validateInstagram } from './instagram/index.ts';
export { createMockedPublisher } from './mocked/index.ts';
export { createPlatformRegistry } from './registry.ts';
export { createTiktokPublisher, validateTiktok } from './tiktok/index.ts';
export { createYoutubePublisher, validateYoutube } from './youtube/index.ts';
