export {
  type Config,
  type LoadConfigOptions,
  loadConfig,
  loadTelemetryConfig,
  type MediaConfig,
  type RedisEndpoint,
  type TelemetryConfig,
  type TracesSampler,
  unsafeSwitches,
} from './config.ts';
export { resolveEncryptionKey, resolveEncryptionKeys } from './encryption-key.ts';
export { ConfigError, type ConfigProblem } from './errors.ts';
export type {
  PlatformSettingSpec,
  PlatformSettingsSource,
  PlatformSettingValues,
} from './platform-settings.ts';
