import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, resolveEncryptionKey, unsafeSwitches } from '../src/index.ts';

/** A platform as a descriptor declares its settings (the real ones live in adapter-platforms). */
const ACME = {
  name: 'acme',
  settings: {
    baseUrl: { env: 'ACME_API_BASE_URL', kind: 'url', default: 'https://api.acme.test' },
    clientId: { env: 'ACME_CLIENT_ID', aliases: ['ACME_CLIENT_KEY'], kind: 'string' },
    version: {
      env: 'ACME_VERSION',
      kind: 'string',
      default: 'v1',
      pattern: /^v\d+$/,
      hint: 'like v1',
    },
  },
} as const;
const withAcme = (source: Record<string, string>) => loadConfig(source, { platforms: [ACME] });

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeNull();
    expect(config.redisUrl).toBeNull();
    expect(config.dataDir).toBe('./.data');
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.httpTimeouts).toEqual({
      headersMs: 10_000,
      bodyMs: 30_000,
      importBodyMs: 300_000,
      mediaBodyMs: 3_600_000,
    });
    expect(config.platforms.settings).toEqual({});
    expect(config.platforms.pollTimeoutMs).toBe(600_000);
    expect(unsafeSwitches(config)).toEqual([]);
    expect(config.metrics).toEqual({ token: null, port: null });
    expect(config.admin).toEqual({ token: null, queuesWritable: false });
  });

  it('quotas per account and per user: defaults, values, refusals naming the variable', () => {
    expect(loadConfig({}).quotas).toEqual({
      webhooksPerAccount: 20,
      socialAccountsPerAccount: 500,
      workspacesPerUser: 50,
    });
    expect(
      loadConfig({
        WEBHOOKS_MAX_PER_ACCOUNT: '2',
        SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: '3',
        WORKSPACES_MAX_PER_USER: '4',
      }).quotas,
    ).toEqual({ webhooksPerAccount: 2, socialAccountsPerAccount: 3, workspacesPerUser: 4 });
    for (const name of [
      'WEBHOOKS_MAX_PER_ACCOUNT',
      'SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT',
      'WORKSPACES_MAX_PER_USER',
      'MEDIA_QUOTA_BYTES',
    ]) {
      expect(() => loadConfig({ [name]: '0' })).toThrow(name);
    }
  });

  it('MEDIA_*: local store under DATA_DIR by default; s3 needs a bucket', () => {
    expect(loadConfig({ DATA_DIR: '/var/sp/' }).media).toEqual({
      store: 'local',
      dir: '/var/sp/media',
      maxBytes: 4 * 1024 ** 3,
      retentionDays: 30,
      quotaBytes: 50 * 1024 ** 3,
      s3: { bucket: null, endpoint: null, region: 'us-east-1', forcePathStyle: false },
    });
    const s3 = loadConfig({
      MEDIA_STORE: 's3',
      MEDIA_S3_BUCKET: 'media',
      MEDIA_S3_ENDPOINT: 'http://minio:9000/',
      MEDIA_S3_REGION: 'eu-west-1',
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
      MEDIA_MAX_BYTES: '1000',
      MEDIA_RETENTION_DAYS: '7',
      MEDIA_QUOTA_BYTES: '5000',
      MEDIA_DIR: '/data/m',
    }).media;
    expect(s3).toEqual({
      store: 's3',
      dir: '/data/m',
      maxBytes: 1000,
      retentionDays: 7,
      quotaBytes: 5000,
      s3: {
        bucket: 'media',
        endpoint: 'http://minio:9000',
        region: 'eu-west-1',
        forcePathStyle: true,
      },
    });
    expect(() => loadConfig({ MEDIA_STORE: 's3' })).toThrow(/MEDIA_S3_BUCKET/);
    expect(() => loadConfig({ MEDIA_STORE: 'ftp' })).toThrow(/MEDIA_STORE/);
    expect(() => loadConfig({ MEDIA_MAX_BYTES: '0' })).toThrow(/MEDIA_MAX_BYTES/);
  });

  it('HOST: the embedded mode listens on 127.0.0.1, production on every interface, HOST wins', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', ENCRYPTION_KEY: key }).host).toBe(
      '0.0.0.0',
    );
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('REDIS_URL or REDIS_SENTINELS + REDIS_SENTINEL_MASTER, one of the two', () => {
    expect(loadConfig({}).redis).toBeNull();
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' }).redis).toEqual({
      kind: 'url',
      url: 'redis://r:6379',
    });
    expect(
      loadConfig({
        REDIS_SENTINELS: 's1:26379, s2:26380',
        REDIS_SENTINEL_MASTER: 'mymaster',
        REDIS_PASSWORD: 'pw',
      }).redis,
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      master: 'mymaster',
      password: 'pw',
      sentinelPassword: null,
      tls: false,
    });
    expect(() => loadConfig({ REDIS_SENTINELS: 's1:26379' })).toThrow(
      /REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS/,
    );
    expect(() => loadConfig({ REDIS_SENTINELS: 's1', REDIS_SENTINEL_MASTER: 'm' })).toThrow(
      /REDIS_SENTINELS must be host:port/,
    );
    expect(() =>
      loadConfig({ REDIS_URL: 'redis://r', REDIS_SENTINELS: 's:1', REDIS_SENTINEL_MASTER: 'm' }),
    ).toThrow(
      /REDIS_URL REDIS_CLUSTER_NODES and REDIS_SENTINELS are three ways to reach Redis: set one/,
    );
    expect(
      loadConfig({ REDIS_CLUSTER_NODES: 'a:7000,b:7001', REDIS_PASSWORD: 'pw' }).redis,
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      password: 'pw',
      tls: false,
    });
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_TLS: 'true' }).redis).toMatchObject({
      tls: true,
    });
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:99999' })).toThrow(
      /REDIS_CLUSTER_NODES must be host:port/,
    );
  });

  it('METRICS_TOKEN, METRICS_PORT, ADMIN_TOKEN, ADMIN_QUEUES_WRITE', () => {
    const token = 'a'.repeat(16);
    const config = loadConfig({
      METRICS_TOKEN: token,
      METRICS_PORT: '9464',
      ADMIN_TOKEN: token,
      ADMIN_QUEUES_WRITE: 'true',
    });
    expect(config.metrics).toEqual({ token, port: 9464 });
    expect(config.admin).toEqual({ token, queuesWritable: true });
    expect(() => loadConfig({ METRICS_TOKEN: 'short', ADMIN_TOKEN: 'x' })).toThrow(
      'invalid configuration (2 problems): METRICS_TOKEN must be at least 16 characters, got 5; ADMIN_TOKEN must be at least 16 characters, got 1',
    );
  });

  it('RATE_LIMIT_AUTH_FAILURES, _OAUTH_CALLBACKS, _TOKEN_FAILURES: a budget each', () => {
    expect(loadConfig({}).attemptLimits).toEqual({
      authFailures: 30,
      oauthCallbacks: 60,
      tokenFailures: 10,
    });
    expect(
      loadConfig({
        RATE_LIMIT_AUTH_FAILURES: '5',
        RATE_LIMIT_OAUTH_CALLBACKS: '6',
        RATE_LIMIT_TOKEN_FAILURES: '7',
      }).attemptLimits,
    ).toEqual({ authFailures: 5, oauthCallbacks: 6, tokenFailures: 7 });
    expect(() => loadConfig({ RATE_LIMIT_TOKEN_FAILURES: '0' })).toThrow(
      /RATE_LIMIT_TOKEN_FAILURES must be between 1 and/,
    );
  });

  it('AUTH_JWT_SECRET: refused under 32 bytes, naming the variable', () => {
    expect(() => loadConfig({ AUTH_JWT_SECRET: 'abc' })).toThrow(
      /AUTH_JWT_SECRET must be at least 32 bytes, got 3/,
    );
    expect(() => loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(31) })).toThrow(ConfigError);
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(loadConfig({ AUTH_JWT_SECRET: 'é'.repeat(16) }).authJwtSecret).toBe('é'.repeat(16));
    expect(loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(32) }).authJwtSecret).toBe('x'.repeat(32));
  });

  it('AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE: read when set, only with a way to verify tokens', () => {
    expect(loadConfig({})).toMatchObject({ authJwtIssuer: null, authJwtAudience: null });
    expect(
      loadConfig({
        AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
        AUTH_JWT_ISSUER: 'https://idp.example.com/',
        AUTH_JWT_AUDIENCE: 'social-publisher',
      }),
    ).toMatchObject({
      authJwtIssuer: 'https://idp.example.com/',
      authJwtAudience: 'social-publisher',
    });
    expect(() => loadConfig({ AUTH_JWT_ISSUER: 'https://idp.example.com/' })).toThrow(
      /AUTH_JWT_ISSUER goes with AUTH_JWT_SECRET or AUTH_JWKS_URL/,
    );
    expect(() => loadConfig({ AUTH_JWT_AUDIENCE: 'x' })).toThrow(/AUTH_JWT_AUDIENCE goes with/);
  });

  it('TRUST_PROXY: nobody by default, else the proxies by address; never "true" or a count', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(
      loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8, ::1' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8', '::1']);
    const refused = 'TRUST_PROXY must list the proxies in front of the API';
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      `${refused}: addresses, networks (10.0.0.0/8) or loopback, linklocal, uniquelocal; true would let any client choose its address with X-Forwarded-For`,
    );
    expect(() => loadConfig({ TRUST_PROXY: '2' })).toThrow(
      'a count of proxies would let a client that reaches the API directly choose its address',
    );
    for (const bad of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.0/8/1', '::1/129', ',']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(refused);
    }
  });

  it('reads and normalises values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h:5432/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      WEBHOOK_ALLOW_HTTP: 'true',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expect(config.port).toBe(8080);
    expect(config.databasePoolSize).toBeNull();
    expect(config.encryptionKey?.length).toBe(32);
    expect(unsafeSwitches(config)).toEqual(['WEBHOOK_ALLOW_HTTP']);
  });

  it('QUEUE_STALLED_INTERVAL_MS / QUEUE_LOCK_DURATION_MS: unset leaves BullMQ its defaults', () => {
    expect(loadConfig({}).queueTuning).toEqual({});
    expect(
      loadConfig({ QUEUE_STALLED_INTERVAL_MS: '500', QUEUE_LOCK_DURATION_MS: ' 1000 ' })
        .queueTuning,
    ).toEqual({ stalledIntervalMs: 500, lockDurationMs: 1_000 });
    expect(loadConfig({ QUEUE_LOCK_DURATION_MS: '' }).queueTuning).toEqual({});
  });

  it("reads each platform's declared settings: defaults, aliases, URLs, patterns", () => {
    expect(withAcme({}).platforms.settings).toEqual({
      acme: { baseUrl: 'https://api.acme.test', clientId: undefined, version: 'v1' },
    });
    const set = withAcme({
      ACME_API_BASE_URL: 'http://127.0.0.1:9999/',
      ACME_CLIENT_KEY: 'old-name',
      ACME_VERSION: 'v2',
    });
    expect(set.platforms.settings.acme).toEqual({
      baseUrl: 'http://127.0.0.1:9999',
      clientId: 'old-name',
      version: 'v2',
    });
    // The current name wins over an alias.
    expect(
      withAcme({ ACME_CLIENT_ID: 'new', ACME_CLIENT_KEY: 'old' }).platforms.settings.acme?.clientId,
    ).toBe('new');
    expect(() => withAcme({ ACME_API_BASE_URL: 'ftp://x' })).toThrow(/ACME_API_BASE_URL/);
    expect(() => withAcme({ ACME_API_BASE_URL: 'not a url' })).toThrow(/ACME_API_BASE_URL/);
    expect(() => withAcme({ ACME_VERSION: '2' })).toThrow(
      'ACME_VERSION must look like v1, got "2"',
    );
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_REPLICA_URL: 'mysql://x' }, 'DATABASE_REPLICA_URL'],
    [{ DATABASE_REPLICA_MAX_LAG_MS: '10' }, 'DATABASE_REPLICA_MAX_LAG_MS'],
    [{ POSTS_RETENTION_DAYS: '0' }, 'POSTS_RETENTION_DAYS'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY'],
    [{ ENCRYPTION_KEY_PREVIOUS: 'c2hvcnQ=' }, 'ENCRYPTION_KEY_PREVIOUS'],
    [{ BOOTSTRAP_API_KEY: 'sp_short' }, 'BOOTSTRAP_API_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HTTP_BODY_TIMEOUT_MS: '0' }, 'HTTP_BODY_TIMEOUT_MS'],
    [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'],
    [{ QUEUE_STALLED_INTERVAL_MS: '99' }, 'QUEUE_STALLED_INTERVAL_MS'],
    [{ QUEUE_LOCK_DURATION_MS: '1s' }, 'QUEUE_LOCK_DURATION_MS'],
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

  it('reports every bad or missing variable at once, in one line', () => {
    let caught: unknown;
    try {
      loadConfig({
        DATABASE_URL: 'localhost:5432/db',
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        CONNECT_RETURN_ORIGINS: 'https://ok.example.com,https://app.example.com/path',
        REDIS_URL: 'redis://127.0.0.1:6379',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems.map((problem) => problem.variable)).toEqual([
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
      'CONNECT_RETURN_ORIGINS',
    ]);
    expect(error.message).toMatch(/^invalid configuration \(4 problems\): /);
    expect(error.message).toContain('DATABASE_URL must use postgres: or postgresql:');
    expect(error.message).not.toContain('\n');
  });

  it('a missing ENCRYPTION_KEY in production is reported with the other problems', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', PORT: 'x' })).toThrow(
      /\(2 problems\): PORT must be a whole number, got "x"; ENCRYPTION_KEY is required with DATABASE_URL/,
    );
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

  it('reads ENCRYPTION_KEY_PREVIOUS as a comma-separated list of keys (none by default)', () => {
    const a = Buffer.alloc(32, 1);
    const b = Buffer.alloc(32, 2);
    expect(loadConfig({}).encryptionKeysPrevious).toEqual([]);
    const source = { ENCRYPTION_KEY_PREVIOUS: `${a.toString('base64')}, ${b.toString('base64')}` };
    expect(loadConfig(source).encryptionKeysPrevious).toEqual([a, b]);
  });

  it('requires ENCRYPTION_KEY in production mode', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db' })).toThrow(
      'invalid configuration: ENCRYPTION_KEY is required with DATABASE_URL',
    );
  });
});
