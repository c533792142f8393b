/**
 * `pnpm cli secrets reencrypt` as a process, in the embedded mode (PGlite, key kept in
 * DATA_DIR) and in production mode (PostgreSQL, ENCRYPTION_KEY): secrets written under the old
 * key are rewritten so that the new key alone reads them.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectSocialAccount,
  createUser,
  createWebhook,
  openWebhookSecret,
  SecretUnreadableError,
  secretBinding,
} from '@social-publisher/domain';
import { createRuntime, loadRuntimeConfig } from '@social-publisher/runtime';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';

const CLI = new URL('../src/cli.ts', import.meta.url).pathname;

function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const silent = pino({ level: 'silent' });

async function withRuntime<T>(
  env: Record<string, string>,
  use: (deps: Awaited<ReturnType<typeof createRuntime>>['deps']) => Promise<T>,
): Promise<T> {
  const runtime = await createRuntime(loadRuntimeConfig(env), silent, { role: 'api' });
  try {
    return await use(runtime.deps);
  } finally {
    await runtime.close();
  }
}

function describeReencrypt(
  name: string,
  setup: () => Promise<{ env: Record<string, string>; oldKey: () => string; done(): void }>,
) {
  it(`${name}: re-encrypts every secret with the new key`, { timeout: 90_000 }, async () => {
    const { env, oldKey, done } = await setup();
    try {
      const seeded = await withRuntime(env, async (deps) => {
        const created = await createUser(deps, {
          email: `cli-${randomBytes(4).toString('hex')}@x.test`,
        });
        if (!created.ok) throw new Error(created.error.message);
        const ctx = {
          accountId: created.value.user.id,
          userId: created.value.user.id,
          role: 'owner' as const,
          apiKeyId: null,
        };
        const hook = await createWebhook(deps, ctx, {
          url: 'https://hooks.example.com/in',
          events: ['post.failed'],
        });
        const connection = await connectSocialAccount(deps, ctx, {
          platform: 'tiktok',
          externalId: 'cli-rotation',
          accessToken: 'access-before-rotation',
        });
        if (!hook.ok || !connection.ok) throw new Error('setup failed');
        return {
          hookId: hook.value.id,
          secret: hook.value.secret,
          connectionId: connection.value.id,
        };
      });
      const newKey = randomBytes(32).toString('base64');
      const readAll = (keys: Record<string, string>) =>
        withRuntime({ ...env, ...keys }, async (deps) => {
          const hook = await deps.repos.webhooks.findById(seeded.hookId);
          const connection = await deps.repos.socialAccounts.findById(seeded.connectionId);
          if (!hook || !connection) throw new Error('rows vanished');
          return {
            secret: openWebhookSecret(deps.cipher, hook),
            token: deps.cipher.decrypt(
              connection.accessTokenCiphertext,
              secretBinding.accessToken(connection.id),
            ),
          };
        });
      const expected = { secret: seeded.secret, token: 'access-before-rotation' };

      await expect(readAll({ ENCRYPTION_KEY: newKey })).rejects.toThrow(SecretUnreadableError);
      const rotating = { ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey() };
      expect(await readAll(rotating)).toEqual(expected);

      const result = await runCli(['secrets', 'reencrypt'], { ...env, ...rotating });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ reencrypted: 2, unchanged: 0, unreadable: [] });
      expect(await readAll({ ENCRYPTION_KEY: newKey })).toEqual(expected);

      // Without the old key, nothing can be read: reported, exit 1, rows left as they are.
      const lost = await runCli(['secrets', 'reencrypt'], {
        ...env,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
      expect(lost.code).toBe(1);
      expect(JSON.parse(lost.stdout).unreadable).toHaveLength(2);
      expect(lost.stderr).toMatch(/2 stored secret\(s\) could not be decrypted/);
      expect(await readAll({ ENCRYPTION_KEY: newKey })).toEqual(expected);
    } finally {
      done();
    }
  });
}

const database = await createTestDatabase();

describe('pnpm cli secrets reencrypt', () => {
  describeReencrypt('embedded (PGlite)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sp-cli-secrets-'));
    return {
      env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      // The embedded mode generated its key into DATA_DIR on first start.
      oldKey: () => readFileSync(join(dataDir, 'encryption.key'), 'utf8').trim(),
      done: () => rmSync(dataDir, { recursive: true, force: true }),
    };
  });

  if (database.skipReason !== undefined) {
    it.skip(`production (PostgreSQL): skipped: ${database.skipReason}`, () => {});
  } else {
    afterAll(() => database.drop());
    describeReencrypt('production (PostgreSQL)', async () => {
      const key = randomBytes(32).toString('base64');
      const dataDir = mkdtempSync(join(tmpdir(), 'sp-cli-secrets-'));
      return {
        env: {
          DATABASE_URL: database.url,
          ENCRYPTION_KEY: key,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        },
        oldKey: () => key,
        done: () => rmSync(dataDir, { recursive: true, force: true }),
      };
    });
  }
});
