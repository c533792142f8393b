/**
 * The composition root: start-up failures give one clear line, unsafe switches are warned about
 * once each, roles pick the right queue side, the rate-limit connection exists only where HTTP
 * is served with Redis configured.
 */
import { ConfigError } from '@social-publisher/config';
import { createRuntime, StartupError } from '@social-publisher/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, serverSetting } from '../../testkit/src/index.ts';
import { closedPort, testConfig, testLogger } from './harness.ts';
import { deleteKeys, REDIS_URL, redisUnavailable, uniquePrefix } from './redis.ts';

describe('createRuntime', () => {
  it('a database it cannot reach: StartupError, nothing left open', async () => {
    const log = testLogger('unreachable-db');
    const config = testConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nope`,
      DATABASE_STARTUP_WAIT_MS: '1500',
    });
    const started = Date.now();
    const error = await createRuntime(config, log.logger, { role: 'api' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/^cannot start: PostgreSQL \(DATABASE_URL\): /);
    // It waited (and said so) within its bound, then gave up.
    expect(log.messages()).toContain(
      'database unreachable at start: waiting for it (DATABASE_STARTUP_WAIT_MS)',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('ENCRYPTION_KEY missing with DATABASE_URL: ConfigError before anything opens', async () => {
    const log = testLogger('no-key');
    const config = testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    const error = await createRuntime({ ...config, encryptionKey: null }, log.logger, {
      role: 'worker',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(log.messages()).not.toContain('database opened');
  });
});

const database = await createTestDatabase();
const redisSkip = await redisUnavailable();

describe.skipIf(database.skipReason)(
  `createRuntime on PostgreSQL${database.skipReason ? ` (skipped: ${database.skipReason})` : ''}`,
  () => {
    afterAll(() => database.drop());

    it('a database that comes up while the process starts: waited for, then opened', async () => {
      const { createServer, connect } = await import('node:net');
      const port = await closedPort();
      const target = new URL(database.url ?? '');
      const viaRelay = new URL(target);
      viaRelay.port = String(port);
      const log = testLogger('late-db');
      const config = testConfig({
        DATABASE_URL: viaRelay.toString(),
        DATABASE_STARTUP_WAIT_MS: '20000',
      });
      // PostgreSQL "comes up" on that port a second after the start: a plain TCP relay.
      const relay = createServer((socket) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      const later = setTimeout(() => relay.listen(port, '127.0.0.1'), 1_000);
      try {
        const runtime = await createRuntime(config, log.logger, { role: 'worker' });
        await runtime.close();
        expect(log.messages()).toContain(
          'database unreachable at start: waiting for it (DATABASE_STARTUP_WAIT_MS)',
        );
      } finally {
        clearTimeout(later);
        await new Promise<void>((resolve) => relay.close(() => resolve()));
      }
    });

    it('warns once per unsafe switch; role api without Redis stores jobs in the database only', async () => {
      const log = testLogger('unsafe');
      const config = testConfig({
        DATABASE_URL: database.url,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
        MEDIA_ALLOW_PRIVATE_NETWORKS: 'true',
      });
      const runtime = await createRuntime(config, log.logger, { role: 'api' });
      try {
        const warnings = log.lines.filter((line) => line.level === 40);
        // A server with autovacuum off (this CI's) is said too, once, after the switches.
        const autovacuumOff = (await serverSetting(database.url ?? '', 'autovacuum')) === 'off';
        expect(warnings.map((line) => line.unsafeSwitch ?? line.setting)).toEqual([
          'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
          'WEBHOOK_ALLOW_HTTP',
          'MEDIA_ALLOW_PRIVATE_NETWORKS',
          ...(autovacuumOff ? ['autovacuum'] : []),
        ]);
        expect(runtime.deps.settings).toMatchObject({
          targetLeaseMs: 1_000,
          webhookAllowHttp: true,
          webhookAllowPrivateNetworks: true,
        });
        expect(runtime.queueKind).toBe('inprocess');
        expect(runtime.consumer).toBeNull();
        expect(runtime.rateLimitRedis).toBeNull();
        expect(await runtime.checks.database()).toBe(true);
        expect(await runtime.checks.queue()).toBe(true);
        expect(runtime.deps.ids.newId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        const secret = runtime.deps.cipher.encrypt('token', 'test:row');
        expect(secret).not.toContain('token');
        expect(runtime.deps.cipher.decrypt(secret, 'test:row')).toBe('token');
      } finally {
        await Promise.all([runtime.close(), runtime.close()]);
      }
      expect(await runtime.checks.database()).toBe(false);
      expect(log.messages().filter((msg) => msg === 'runtime closed')).toHaveLength(1);
    });

    it.skipIf(redisSkip)(
      `the rate-limit Redis client: built for roles that serve HTTP, closed with the runtime${redisSkip ? ` (skipped: ${redisSkip})` : ''}`,
      async () => {
        const log = testLogger('rate-limit-redis');
        const prefix = uniquePrefix('rate-limit');
        const config = testConfig({ DATABASE_URL: database.url, REDIS_URL, QUEUE_PREFIX: prefix });
        const api = await createRuntime(config, log.logger, { role: 'api' });
        const worker = await createRuntime(config, log.logger, { role: 'worker' });
        const client = api.rateLimitRedis;
        try {
          expect(client?.status).toBe('ready');
          expect(await client?.ping()).toBe('PONG');
          expect(worker.rateLimitRedis).toBeNull();
          // Both producers connected before closing: a BullMQ producer closed during its
          // connection handshake leaks an unhandled ioredis rejection (adapter-bullmq).
          expect(await api.checks.queue()).toBe(true);
          expect(await worker.checks.queue()).toBe(true);
        } finally {
          await Promise.all([api.close(), worker.close()]);
          await deleteKeys(prefix);
        }
        expect(client?.status).toBe('end');
      },
    );
  },
);
