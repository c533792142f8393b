import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, resolveEncryptionKey, unsafeSwitches } from '../src/index.ts';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeNull();
    expect(config.redisUrl).toBeNull();
    expect(config.dataDir).toBe('./.data');
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.platforms.tiktok.baseUrl).toBe('https://open.tiktokapis.com');
    expect(config.platforms.pollTimeoutMs).toBe(600_000);
    expect(unsafeSwitches(config)).toEqual([]);
  });

  it('reads and normalises values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h:5432/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      TIKTOK_API_BASE_URL: 'http://127.0.0.1:9999/',
      WEBHOOK_ALLOW_HTTP: 'true',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expect(config.port).toBe(8080);
    expect(config.databasePoolSize).toBeNull();
    expect(config.platforms.tiktok.baseUrl).toBe('http://127.0.0.1:9999');
    expect(config.encryptionKey?.length).toBe(32);
    expect(unsafeSwitches(config)).toEqual(['WEBHOOK_ALLOW_HTTP']);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY'],
    [{ BOOTSTRAP_API_KEY: 'sp_short' }, 'BOOTSTRAP_API_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'],
    [{ INSTAGRAM_GRAPH_VERSION: '21' }, 'INSTAGRAM_GRAPH_VERSION'],
  ])('refuses %o naming the variable in one line', (source, variable) => {
    let caught: unknown;
    try {
      loadConfig(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as Error).message).toContain(variable);
    expect((caught as Error).message).not.toContain('\n');
  });
});

describe('resolveEncryptionKey', () => {
  it('generates a key once in the data dir and reuses it (embedded mode)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-config-'));
    try {
      const config = loadConfig({ DATA_DIR: dir });
      const first = resolveEncryptionKey(config);
      const second = resolveEncryptionKey(config);
      expect(first.length).toBe(32);
      expect(second.equals(first)).toBe(true);
      expect(statSync(join(dir, 'encryption.key')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, 'encryption.key'), 'utf8').trim()).toBe(
        first.toString('base64'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('requires ENCRYPTION_KEY in production mode', () => {
    expect(() => resolveEncryptionKey(loadConfig({ DATABASE_URL: 'postgres://h/db' }))).toThrow(
      ConfigError,
    );
  });
});
