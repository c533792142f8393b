export type { PlatformsConfig } from './config.ts';
export {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './config.ts';
export {
  definePlatform,
  type PlatformDefinition,
  type PlatformDescriptor,
  type PlatformSetting,
  type PlatformSettingsSpec,
  type PlatformSettingValues,
  type SettingsOf,
} from './descriptor.ts';
export { createMediaProbe } from './media-probe.ts';
export { PLATFORM_DESCRIPTORS } from './platforms.ts';
export type { PublisherRuntime } from './publisher-runtime.ts';
export { platformRateLimits } from './rate-limits.ts';
export { createPlatformRegistry, publisherRuntime } from './registry.ts';
export { type GeneratedBlock, settingsDocBlocks, withBlock } from './settings-docs.ts';
