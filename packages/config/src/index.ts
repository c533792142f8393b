export {
  type Config,
  type LoadConfigOptions,
  loadConfig,
  type MediaConfig,
  type RedisEndpoint,
  unsafeSwitches,
} from './config.ts';
export { resolveEncryptionKey, resolveEncryptionKeys } from './encryption-key.ts';
export { ConfigError, type ConfigProblem } from './errors.ts';
export type {
  PlatformSettingSpec,
  PlatformSettingsSource,
  PlatformSettingValues,
} from './platform-settings.ts';
