/**
 * The composition root and the worker entry point: start-up failures give one clear line,
 * unsafe switches are warned about once each, roles pick the right queue side.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@social-publisher/config';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { createRuntime, readQueueTuning, StartupError } from '../src/runtime.ts';
import { closedPort, ENCRYPTION_KEY, testConfig, testLogger } from './harness.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function runMain(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.concurrent('pnpm start:worker (main.ts)', () => {
  it('without DATABASE_URL and REDIS_URL: one clear line, exit 1', async () => {
    const { code, stderr } = await runMain({});
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'start:worker is the production worker and needs DATABASE_URL and REDIS_URL (for one process with API and worker, use pnpm start)',
    ]);
  });

  it('the database unreachable: start-up stops with one line naming it, exit 1', async () => {
    const { code, stderr } = await runMain({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nope`,
      REDIS_URL: 'redis://127.0.0.1:6379',
      ENCRYPTION_KEY,
    });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cannot start: PostgreSQL \(DATABASE_URL\): .*ECONNREFUSED/);
  });
});

describe('readQueueTuning', () => {
  it('reads the BullMQ knobs, or leaves the adapter defaults', () => {
    expect(readQueueTuning({})).toEqual({});
    expect(
      readQueueTuning({ QUEUE_STALLED_INTERVAL_MS: '500', QUEUE_LOCK_DURATION_MS: '1000' }),
    ).toEqual({ stalledIntervalMs: 500, lockDurationMs: 1000 });
    expect(() => readQueueTuning({ QUEUE_STALLED_INTERVAL_MS: '10' })).toThrow(ConfigError);
    expect(() => readQueueTuning({ QUEUE_LOCK_DURATION_MS: '1e3' })).toThrow(
      /QUEUE_LOCK_DURATION_MS/,
    );
  });
});

describe('createRuntime', () => {
  it('a database it cannot reach: StartupError, nothing left open', async () => {
    const log = testLogger('unreachable-db');
    const config = testConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nope`,
    });
    const error = await createRuntime(config, log.logger, { role: 'api' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/^cannot start: PostgreSQL \(DATABASE_URL\): /);
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

describe.skipIf(database.skipReason)(
  `createRuntime on PostgreSQL${database.skipReason ? ` (skipped: ${database.skipReason})` : ''}`,
  () => {
    afterAll(() => database.drop());

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
        expect(warnings.map((line) => line.unsafeSwitch)).toEqual([
          'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
          'WEBHOOK_ALLOW_HTTP',
          'MEDIA_ALLOW_PRIVATE_NETWORKS',
        ]);
        expect(runtime.deps.settings).toMatchObject({
          targetLeaseMs: 1_000,
          webhookAllowHttp: true,
          webhookAllowPrivateNetworks: true,
        });
        expect(runtime.queueKind).toBe('inprocess');
        expect(runtime.consumer).toBeNull();
        expect(await runtime.checks.database()).toBe(true);
        expect(await runtime.checks.queue()).toBe(true);
        expect(runtime.deps.ids.newId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        const secret = runtime.deps.cipher.encrypt('token');
        expect(secret).not.toContain('token');
        expect(runtime.deps.cipher.decrypt(secret)).toBe('token');
      } finally {
        await Promise.all([runtime.close(), runtime.close()]);
      }
      expect(await runtime.checks.database()).toBe(false);
      expect(log.messages().filter((msg) => msg === 'runtime closed')).toHaveLength(1);
    });
  },
);
