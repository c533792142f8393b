export { type Config, loadConfig, unsafeSwitches } from './config.ts';
export { resolveEncryptionKey } from './encryption-key.ts';
export { ConfigError } from './errors.ts';
