// Secrets at rest: after the domain's own use cases stored a connection (tokens through the
// AES-256-GCM TokenCipher), a webhook (its signing secret sealed the same way) and API keys
// (SHA-256 hashes), a full dump of the database holds neither the plaintext tokens, nor the
// signing secret, nor the raw keys. PostgreSQL is dumped with pg_dump (when on PATH; else
// every table as row_to_json text, which is also how PGlite is dumped).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import {
  type AccountContext,
  authenticateApiKey,
  type CoreDeps,
  connectSocialAccount,
  createAesGcmCipher,
  createApiKey,
  createUser,
  createUuidV7Generator,
  createWebhook,
  hashApiKey,
  openWebhookSecret,
  secretBinding,
} from '@social-publisher/domain';
import { createTestDeps } from '@social-publisher/domain/testing';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.ts';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

const run = promisify(execFile);

/** Every row of every table of the public schema, as JSON text. */
async function dumpAsJson(db: Kysely<Database>): Promise<string> {
  const { rows: tables } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await sql<{ row: string }>`
      SELECT row_to_json(t)::text AS row FROM ${sql.table(table_name)} AS t`.execute(db);
    parts.push(`-- ${table_name}`, ...rows.map((row) => row.row));
  }
  return parts.join('\n');
}

async function pgDump(url: string, db: Kysely<Database>): Promise<{ how: string; text: string }> {
  try {
    const { stdout } = await run('pg_dump', ['--no-owner', '--no-privileges', '--dbname', url], {
      maxBuffer: 256 * 1024 * 1024,
    });
    return { how: 'pg_dump', text: stdout };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { how: 'row_to_json (no pg_dump on PATH)', text: await dumpAsJson(db) };
  }
}

function describeSecrets(
  name: string,
  open: () => Promise<{ backend: Backend; dump(): Promise<{ how: string; text: string }> }>,
) {
  describe(`${name}: secrets at rest`, () => {
    let subject: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      subject = await open();
    });
    afterAll(async () => {
      await subject?.backend.close();
    });

    it('the dump holds no plaintext token and no raw API key', async () => {
      const { handle } = subject.backend;
      const cipher = createAesGcmCipher(randomBytes(32));
      const deps: CoreDeps = {
        ...createTestDeps(),
        repos: handle.repos,
        uow: handle.uow,
        ids: createUuidV7Generator(),
        cipher,
      };
      const accessToken = `act.${randomBytes(24).toString('hex')}`;
      const refreshToken = `rft.${randomBytes(24).toString('hex')}`;

      const created = await createUser(deps, {
        email: `secrets-${randomBytes(4).toString('hex')}@example.test`,
      });
      if (!created.ok) throw new Error(created.error.message);
      const { user, rawKey } = created.value;
      const ctx: AccountContext = {
        accountId: user.id,
        userId: user.id,
        role: 'owner',
        apiKeyId: null,
      };
      const second = await createApiKey(deps, ctx, { name: 'second key' });
      if (!second.ok) throw new Error(second.error.message);
      const connected = await connectSocialAccount(deps, ctx, {
        platform: 'tiktok',
        externalId: 'open-id-123',
        accessToken,
        refreshToken,
        tokenExpiresAt: '2031-01-01T00:00:00Z',
      });
      if (!connected.ok) throw new Error(connected.error.message);

      // The stored values are usable: the key authenticates, the ciphertext decrypts.
      expect((await authenticateApiKey(deps, rawKey)).ok).toBe(true);
      const stored = await handle.repos.socialAccounts.findById(connected.value.id);
      expect(
        cipher.decrypt(
          stored?.accessTokenCiphertext ?? '',
          secretBinding.accessToken(connected.value.id),
        ),
      ).toBe(accessToken);
      expect(
        cipher.decrypt(
          stored?.refreshTokenCiphertext ?? '',
          secretBinding.refreshToken(connected.value.id),
        ),
      ).toBe(refreshToken);

      const hook = await createWebhook(deps, ctx, {
        url: 'https://hooks.example.com/in',
        events: ['post.failed'],
      });
      if (!hook.ok) throw new Error(hook.error.message);
      const storedHook = await handle.repos.webhooks.findById(hook.value.id);
      expect(openWebhookSecret(cipher, storedHook ?? hook.value)).toBe(hook.value.secret);

      const { how, text } = await subject.dump();
      console.info(`[${name}] dumped ${text.length} characters with ${how}`);
      // The dump really contains the rows (hashes and ciphertext)...
      expect(text).toContain(hashApiKey(rawKey));
      expect(text).toContain(hashApiKey(second.value.rawKey));
      expect(text).toContain(stored?.accessTokenCiphertext);
      // ...and none of the secrets.
      expect(text).toContain(storedHook?.secretCiphertext);
      const webhookSecret = hook.value.secret;
      for (const secret of [
        accessToken,
        refreshToken,
        rawKey,
        second.value.rawKey,
        webhookSecret,
      ]) {
        expect(text).not.toContain(secret);
      }
      for (const raw of [rawKey, second.value.rawKey]) expect(text).not.toContain(raw.slice(3));
      expect(text).not.toContain(accessToken.slice(4));
      expect(text).not.toContain(refreshToken.slice(4));
      expect(text).not.toContain(webhookSecret.slice('whsec_'.length));
    });
  });
}

describeSecrets('pglite', async () => {
  const backend = await openPgliteBackend();
  return {
    backend,
    dump: async () => ({ how: 'row_to_json', text: await dumpAsJson(backend.handle.db) }),
  };
});

const database = await createPostgresDatabase();
if (database.skipReason !== undefined) {
  describe('postgres: secrets at rest', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  const url = database.url;
  describeSecrets('postgres', async () => {
    const backend = await openPostgresBackend(database);
    return { backend, dump: () => pgDump(url, backend.handle.db) };
  });
  afterAll(() => database.drop());
}
