// The generic hooks a platform without a central host uses (docs/connect.md#platform-extensions):
// its own connect fields, prepared by its connector and kept with the flow; apps kept per
// platform and instance, secret encrypted, reused; platform data stored on the connection and
// handed to per-connection validation.
import { describe, expect, it } from 'vitest';
import {
  type ConnectOutcome,
  completeConnect,
  openConsent,
  type PlatformOAuth,
  type PlatformRules,
  publisherProblems,
  type RegisteredApps,
  registeredApps,
  startConnect,
} from '../src/index.ts';
import {
  createTestDeps,
  permissiveRules,
  ScriptedOAuth,
  ScriptedPlatformRegistry,
  seedUser,
} from '../src/testing/index.ts';
import { errorOf, unwrap } from './support.ts';

const FEDI: PlatformRules = {
  ...permissiveRules('fedi'),
  connectFields: {
    properties: { instance: { type: 'string' } },
    required: ['instance'],
  },
};

/** A connector that registers its app once per instance, like Mastodon's. */
function fediConnector() {
  const registered: string[] = [];
  const exchanges: Array<{ params: unknown; secret: string | undefined }> = [];
  const connector: PlatformOAuth = {
    platform: 'fedi',
    missingSettings: [],
    async prepare({ fields, apps }) {
      const instance = fields.instance;
      if (typeof instance !== 'string' || !instance.startsWith('https://')) {
        return { ok: false, problems: [{ field: 'instance', message: 'must be https' }] };
      }
      let app = await apps.find(instance);
      if (!app) {
        registered.push(instance);
        app = await apps.keep(instance, {
          clientId: `client-${registered.length}`,
          clientSecret: `secret-${registered.length}`,
        });
      }
      return { ok: true, params: { instance, client_id: app.clientId } };
    },
    authorizationUrl(request) {
      const url = new URL(`${request.params?.instance}/oauth/authorize`);
      url.searchParams.set('client_id', String(request.params?.client_id));
      url.searchParams.set('state', request.state);
      return url.toString();
    },
    async connect(exchange): Promise<ConnectOutcome> {
      const instance = String(exchange.params?.instance);
      const app = await (exchange.apps as RegisteredApps).find(instance);
      exchanges.push({ params: exchange.params, secret: app?.clientSecret });
      return {
        ok: true,
        identities: [
          {
            externalId: `42@${new URL(instance).host}`,
            displayName: '@someone',
            tokens: { accessToken: 'tok', refreshToken: null, expiresAt: null, scopes: [] },
            platformData: { instance, maxCharacters: 1000 },
          },
        ],
      };
    },
  };
  return { connector, registered, exchanges };
}

async function setup() {
  const fedi = fediConnector();
  const platforms = new ScriptedPlatformRegistry(['tiktok', FEDI])
    .withOAuth(new ScriptedOAuth('tiktok'))
    .withOAuth(fedi.connector);
  const deps = createTestDeps({ platforms });
  const alice = await seedUser(deps, 'alice@example.com');
  return { deps, alice, fedi, platforms };
}

describe('connect fields', () => {
  it('are refused on a platform that does not declare them, and required where declared', async () => {
    const { deps, alice } = await setup();
    expect(
      errorOf(await startConnect(deps, alice.ctx, { platform: 'tiktok', instance: 'x' })),
    ).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'instance', message: 'is not taken when connecting tiktok accounts' }],
    });
    expect(errorOf(await startConnect(deps, alice.ctx, { platform: 'fedi' }))).toMatchObject({
      details: [{ field: 'instance', message: 'is required to connect fedi accounts' }],
    });
    // The connector's own problems are the request's.
    expect(
      errorOf(await startConnect(deps, alice.ctx, { platform: 'fedi', instance: 'http://x' })),
    ).toMatchObject({ details: [{ field: 'instance', message: 'must be https' }] });
    expect(await deps.repos.platformApps.find('fedi', 'http://x')).toBeNull();
  });

  it('are prepared once per instance, kept with the flow, and reach the consent and the exchange', async () => {
    const { deps, alice, fedi } = await setup();
    const instance = 'https://social.example';
    const started = unwrap(await startConnect(deps, alice.ctx, { platform: 'fedi', instance }));
    unwrap(await startConnect(deps, alice.ctx, { platform: 'fedi', instance }));
    expect(fedi.registered).toEqual([instance]);

    // Kept per platform and instance, the secret encrypted.
    const app = await deps.repos.platformApps.find('fedi', instance);
    expect(app).toMatchObject({ platform: 'fedi', instance, clientId: 'client-1' });
    expect(app?.clientSecretCiphertext).not.toContain('secret-1');

    const opening = await openConsent(deps, 'fedi', started.state, undefined);
    if (!opening.ok) throw new Error(opening.message);
    expect(opening.platformUrl).toMatch(
      /^https:\/\/social\.example\/oauth\/authorize\?client_id=client-1/,
    );
    const result = await completeConnect(
      deps,
      'fedi',
      { code: 'c', state: started.state },
      opening.browserNonce,
    );
    if (!result.ok) throw new Error(result.message);
    expect(fedi.exchanges).toEqual([
      { params: { instance, client_id: 'client-1' }, secret: 'secret-1' },
    ]);
    const connection = await deps.repos.socialAccounts.findById(result.connections[0]?.id ?? '');
    expect(connection?.platformData).toEqual({ instance, maxCharacters: 1000 });
  });

  it('of two apps kept for one instance the first stays', async () => {
    const { deps } = await setup();
    const apps = registeredApps(deps, 'fedi');
    const first = await apps.keep('https://a.example', { clientId: 'one', clientSecret: 's1' });
    const second = await apps.keep('https://a.example', { clientId: 'two', clientSecret: 's2' });
    expect(first).toEqual({ clientId: 'one', clientSecret: 's1' });
    expect(second).toEqual(first);
    expect(await registeredApps(deps, 'other').find('https://a.example')).toBeNull();
  });
});

describe('per-connection validation', () => {
  it("runs the publisher's validateFor once per target connection with its platform data", async () => {
    const { deps, platforms } = await setup();
    const seen: unknown[] = [];
    const publisher = platforms.get('fedi');
    if (!publisher) throw new Error('no publisher');
    Object.assign(publisher, {
      validateFor: (_draft: unknown, data: unknown, field: string) => {
        seen.push({ data, field });
        return [{ field: 'content', message: `too long for ${field}` }];
      },
    });
    const draft = { content: 'hi', mediaUrls: [], platformOptions: {} };
    const problems = publisherProblems(
      deps,
      [
        { platform: 'fedi', field: 'social_account_ids[0]', platformData: { maxCharacters: 5 } },
        { platform: 'fedi', field: 'social_account_ids[1]' },
        { platform: 'tiktok', field: 'social_account_ids[2]' },
      ],
      draft,
    );
    expect(seen).toEqual([
      { data: { maxCharacters: 5 }, field: 'social_account_ids[0]' },
      { data: null, field: 'social_account_ids[1]' },
    ]);
    expect(problems).toEqual([
      { field: 'content', message: 'too long for social_account_ids[0]' },
      { field: 'content', message: 'too long for social_account_ids[1]' },
    ]);
  });
});
