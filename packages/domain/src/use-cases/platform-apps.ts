/**
 * The apps a connector registered on its platform's instances, as the connector sees them
 * (docs/connect.md#platform-extensions): by instance, the client secret decrypted. Stored per
 * platform and instance, the secret encrypted like tokens, so every later connect to the same
 * instance reuses the app; of concurrent first connects the first app stored wins.
 */
import type { CoreDeps } from '../deps.ts';
import type { Platform, PlatformApp } from '../model.ts';
import type { RegisteredApp, RegisteredApps } from '../ports/index.ts';
import { secretBinding } from '../secret-cipher.ts';

export function registeredApps(deps: CoreDeps, platform: Platform): RegisteredApps {
  const open = (app: PlatformApp): RegisteredApp => ({
    clientId: app.clientId,
    clientSecret: deps.cipher.decrypt(app.clientSecretCiphertext, secretBinding.appSecret(app.id)),
  });
  return {
    async find(instance) {
      const app = await deps.repos.platformApps.find(platform, instance);
      return app ? open(app) : null;
    },
    async keep(instance, app) {
      const id = deps.ids.newId();
      const kept = await deps.repos.platformApps.keep({
        id,
        platform,
        instance,
        clientId: app.clientId,
        clientSecretCiphertext: deps.cipher.encrypt(app.clientSecret, secretBinding.appSecret(id)),
        createdAt: deps.clock.now(),
      });
      return kept.id === id ? app : open(kept);
    },
  };
}
