// Key rotation on both backends: rows written under an old key (and in the formats from before
// rotation: unbound v1 tokens, plaintext webhook secrets) stay readable with the old key as a
// previous one; reencryptSecrets rewrites them so that the new key alone reads them; a
// ciphertext copied to another row is reported, left as it is, and never decrypts there.
import { createCipheriv, randomBytes } from 'node:crypto';
import {
  type AccountContext,
  type CoreDeps,
  connectSocialAccount,
  createAesGcmCipher,
  createUser,
  createUuidV7Generator,
  createWebhook,
  openWebhookSecret,
  registeredApps,
  SecretUnreadableError,
  secretBinding,
  type TokenCipher,
} from '@social-publisher/domain';
import { createTestDeps } from '@social-publisher/domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reencryptSecrets } from '../src/index.ts';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

/** The token format written before rotation and row binding existed. */
function legacyV1(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, body, cipher.getAuthTag()].map((p) => p.toString('base64url')).join('.');
}

function describeRotation(name: string, open: () => Promise<Backend>) {
  describe(`${name}: encryption key rotation`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(async () => {
      await backend?.close();
    });

    const depsWith = (cipher: TokenCipher): CoreDeps => ({
      ...createTestDeps(),
      repos: backend.handle.repos,
      uow: backend.handle.uow,
      ids: createUuidV7Generator(),
      cipher,
    });

    it('old rows read with the previous key; re-encrypted, with the new key alone', async () => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const before = depsWith(createAesGcmCipher(oldKey));
      const created = await createUser(before, {
        email: `rotate-${randomBytes(4).toString('hex')}@example.test`,
      });
      if (!created.ok) throw new Error(created.error.message);
      const ctx: AccountContext = {
        accountId: created.value.user.id,
        userId: created.value.user.id,
        role: 'owner',
        apiKeyId: null,
      };
      const connect = (externalId: string) =>
        connectSocialAccount(before, ctx, {
          platform: 'tiktok',
          externalId,
          accessToken: `access-${externalId}`,
          refreshToken: `refresh-${externalId}`,
        });
      const sealed = await connect('sealed');
      const legacy = await connect('legacy');
      const copied = await connect('copied');
      const hook = await createWebhook(before, ctx, {
        url: 'https://hooks.example.com/in',
        events: ['post.failed'],
      });
      const plainHook = await createWebhook(before, ctx, {
        url: 'https://hooks.example.com/plain',
        events: ['post.failed'],
      });
      if (!sealed.ok || !legacy.ok || !copied.ok || !hook.ok || !plainHook.ok) {
        throw new Error('setup failed');
      }
      const { db } = backend.handle;
      // Rows as older versions wrote them: an unbound v1 token, a plaintext webhook secret.
      await db
        .updateTable('social_accounts')
        .set({
          access_token_ciphertext: legacyV1(oldKey, 'access-legacy'),
          refresh_token_ciphertext: null,
        })
        .where('id', '=', legacy.value.id)
        .execute();
      await db
        .updateTable('webhooks')
        .set({ secret: plainHook.value.secret })
        .where('id', '=', plainHook.value.id)
        .execute();
      // A ciphertext copied onto another row.
      await db
        .updateTable('social_accounts')
        .set({ access_token_ciphertext: sealed.value.accessTokenCiphertext })
        .where('id', '=', copied.value.id)
        .execute();

      const rotating = createAesGcmCipher(newKey, { previous: [oldKey] });
      const read = async (cipher: TokenCipher, id: string) => {
        const row = await backend.handle.repos.socialAccounts.findById(id);
        return cipher.decrypt(row?.accessTokenCiphertext ?? '', secretBinding.accessToken(id));
      };
      const readHook = async (cipher: TokenCipher, id: string) => {
        const row = await backend.handle.repos.webhooks.findById(id);
        if (!row) throw new Error('webhook vanished');
        return openWebhookSecret(cipher, row);
      };

      // During the rotation: the previous key still reads the old rows.
      expect(await read(rotating, sealed.value.id)).toBe('access-sealed');
      expect(await read(rotating, legacy.value.id)).toBe('access-legacy');
      expect(await readHook(rotating, hook.value.id)).toBe(hook.value.secret);
      expect(await readHook(rotating, plainHook.value.id)).toBe(plainHook.value.secret);
      // The copy never decrypts on its new row, with any key.
      await expect(read(rotating, copied.value.id)).rejects.toThrow(SecretUnreadableError);

      const report = await reencryptSecrets(db, rotating);
      expect(report.unreadable).toEqual([
        {
          table: 'social_accounts',
          id: copied.value.id,
          reason: expect.stringMatching(/copied from another row/),
        },
      ]);
      // Two connections and two webhooks; the copy is not rewritten.
      expect(report.reencrypted).toBe(4);

      // After: the new key alone reads every rewritten row, the old one none of them.
      const newOnly = createAesGcmCipher(newKey);
      expect(await read(newOnly, sealed.value.id)).toBe('access-sealed');
      expect(await read(newOnly, legacy.value.id)).toBe('access-legacy');
      const refresh = await backend.handle.repos.socialAccounts.findById(sealed.value.id);
      expect(
        newOnly.decrypt(
          refresh?.refreshTokenCiphertext ?? '',
          secretBinding.refreshToken(sealed.value.id),
        ),
      ).toBe('refresh-sealed');
      expect(await readHook(newOnly, hook.value.id)).toBe(hook.value.secret);
      expect(await readHook(newOnly, plainHook.value.id)).toBe(plainHook.value.secret);
      const stored = await backend.handle.repos.webhooks.findById(plainHook.value.id);
      expect(stored?.secretCiphertext).toMatch(/^v2\./);
      await expect(read(createAesGcmCipher(oldKey), sealed.value.id)).rejects.toThrow(
        SecretUnreadableError,
      );
      // The unreadable row is untouched: nothing was lost.
      const untouched = await backend.handle.repos.socialAccounts.findById(copied.value.id);
      expect(untouched?.accessTokenCiphertext).toBe(sealed.value.accessTokenCiphertext);

      // A second run finds nothing left to do.
      const again = await reencryptSecrets(db, newOnly);
      expect(again.reencrypted).toBe(0);
    });

    it('re-encrypts the client secrets of apps registered on platform instances', async () => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const instance = `https://${randomBytes(4).toString('hex')}.example`;
      await registeredApps(depsWith(createAesGcmCipher(oldKey)), 'mastodon').keep(instance, {
        clientId: 'client',
        clientSecret: 'app-secret',
      });
      const report = await reencryptSecrets(
        backend.handle.db,
        createAesGcmCipher(newKey, { previous: [oldKey] }),
      );
      expect(report.unreadable.filter((row) => row.table === 'platform_apps')).toEqual([]);
      const newOnly = registeredApps(depsWith(createAesGcmCipher(newKey)), 'mastodon');
      expect(await newOnly.find(instance)).toEqual({
        clientId: 'client',
        clientSecret: 'app-secret',
      });
      const oldOnly = registeredApps(depsWith(createAesGcmCipher(oldKey)), 'mastodon');
      await expect(oldOnly.find(instance)).rejects.toThrow(SecretUnreadableError);
    });
  });
}

describeRotation('pglite', () => openPgliteBackend());

const database = await createPostgresDatabase();
if (database.skipReason !== undefined) {
  describe('postgres: encryption key rotation', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  describeRotation('postgres', () => openPostgresBackend(database));
  afterAll(() => database.drop());
}
