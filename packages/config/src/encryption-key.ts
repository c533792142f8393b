import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { ConfigError } from './errors.ts';

/**
 * The keys of the secrets at rest: the current one (encrypts and decrypts) and the previous
 * ones of a rotation under way (decrypt only, until `pnpm cli secrets reencrypt` has run).
 */
export function resolveEncryptionKeys(config: Config): { current: Buffer; previous: Buffer[] } {
  return { current: resolveEncryptionKey(config), previous: config.encryptionKeysPrevious };
}

/**
 * The key that encrypts secrets at rest (platform tokens, webhook signing secrets). Production (a DATABASE_URL) must pass
 * ENCRYPTION_KEY: a key generated on one API host would not decrypt on another. The embedded
 * mode keeps a generated key beside its data, readable by the owner only.
 */
export function resolveEncryptionKey(config: Config): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  if (config.databaseUrl) {
    throw new ConfigError(
      'ENCRYPTION_KEY',
      'is required with DATABASE_URL (openssl rand -base64 32)',
    );
  }
  const file = join(config.dataDir, 'encryption.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32)
      throw new ConfigError('ENCRYPTION_KEY', `file ${file} does not hold 32 bytes`);
    return key;
  }
  // DATA_DIR is the owner's only, like everything under it (adapter-postgres tightens it).
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
