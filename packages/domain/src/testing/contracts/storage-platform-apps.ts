/**
 * Contract of PlatformAppRepository (apps registered per platform instance), and of the
 * platform data that connections and connect flows carry (docs/connect.md#platform-extensions).
 *
 *   import { describePlatformAppRepositoryContract } from '@social-publisher/domain/contracts/storage-platform-apps';
 */
import { describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../model.ts';
import {
  makeSocialAccount,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedUser,
  sha256Hex,
  useStorage,
} from './storage-fixtures.ts';

export function describePlatformAppRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: PlatformAppRepository and platform data`, () => {
    const storage = useStorage(setup);
    const apps = () => storage().repos.platformApps;

    const makeApp = (overrides: Partial<PlatformApp> = {}): PlatformApp => ({
      id: newId(),
      platform: 'mastodon',
      instance: `https://${newId()}.example`,
      clientId: `client-${newId()}`,
      clientSecretCiphertext: 'v1.nonce.cipher.tag',
      createdAt: nextTime(),
      ...overrides,
    });

    it('keeps an app per platform and instance and finds it again', async () => {
      const app = makeApp();
      expect(await apps().find(app.platform, app.instance)).toBeNull();
      expect(await apps().keep(app)).toEqual(app);
      expect(await apps().find(app.platform, app.instance)).toEqual(app);
      expect(await apps().find('other', app.instance)).toBeNull();
      expect(await apps().find(app.platform, 'https://elsewhere.example')).toBeNull();
    });

    it('the first app kept for an instance stays: a later one gets it back', async () => {
      const first = makeApp();
      await apps().keep(first);
      const second = makeApp({ instance: first.instance, clientId: 'another' });
      expect(await apps().keep(second)).toEqual(first);
      expect(await apps().find(first.platform, first.instance)).toEqual(first);
      // Another platform on the same host is another app.
      const other = makeApp({ instance: first.instance, platform: 'other' });
      expect(await apps().keep(other)).toEqual(other);
    });

    it('of concurrent first keeps, all converge on one app', async () => {
      const instance = `https://${newId()}.example`;
      const candidates = Array.from({ length: 5 }, () => makeApp({ instance }));
      const kept = await Promise.all(candidates.map((app) => apps().keep(app)));
      const ids = new Set(kept.map((app) => app.id));
      expect(ids.size).toBe(1);
      expect(await apps().find('mastodon', instance)).toEqual(kept[0]);
    });

    it("stores a connection's platform data and renews it on a reconnect", async () => {
      const { repos } = storage();
      const user = await seedUser(repos);
      const platformData = { instance: 'https://social.example', maxCharacters: 1000 };
      const connection = makeSocialAccount(user.id, { platform: 'mastodon', platformData });
      await repos.socialAccounts.insert(connection);
      expect(await repos.socialAccounts.findById(connection.id)).toEqual(connection);
      const plain = makeSocialAccount(user.id);
      await repos.socialAccounts.insert(plain);
      expect((await repos.socialAccounts.findById(plain.id))?.platformData ?? null).toBeNull();

      const at = nextTime();
      const renewed = { instance: 'https://social.example', maxCharacters: 5000 };
      const fields = {
        displayName: 'again',
        accessTokenCiphertext: 'v1.a.b.c',
        refreshTokenCiphertext: null,
        tokenExpiresAt: null,
        scopes: [],
      };
      await repos.socialAccounts.reconnect(connection.id, { ...fields, platformData: renewed }, at);
      expect((await repos.socialAccounts.findById(connection.id))?.platformData).toEqual(renewed);
      // A reconnect that says nothing of the platform data leaves it.
      await repos.socialAccounts.reconnect(connection.id, fields, nextTime());
      expect((await repos.socialAccounts.findById(connection.id))?.platformData).toEqual(renewed);
    });

    it("keeps a connect flow's prepared parameters", async () => {
      const { repos } = storage();
      const user = await seedUser(repos);
      const createdAt = nextTime();
      const state = {
        id: newId(),
        stateHash: sha256Hex(newId()),
        accountId: user.id,
        userId: user.id,
        platform: 'mastodon',
        codeVerifierCiphertext: 'v1.nonce.cipher.tag',
        browserHash: null,
        returnUrl: null,
        connectParams: { instance: 'https://social.example', client_id: 'abc' },
        expiresAt: plus(createdAt, 600_000),
        createdAt,
      };
      await repos.oauthStates.insert(state);
      expect(await repos.oauthStates.find(state.stateHash)).toEqual(state);
      expect(await repos.oauthStates.take(state.stateHash)).toEqual(state);
    });
  });
}
