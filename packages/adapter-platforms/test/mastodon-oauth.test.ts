// Mastodon connect over real HTTP against the local fake instance: the app is registered on an
// instance on first use and reused after (also by concurrent connects), the consent and code
// exchange use PKCE S256, the connection remembers its instance and the instance's status
// length, and an instance URL the SSRF guard refuses never gets a request.
import type { PlatformOAuth, RegisteredApp, RegisteredApps } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import { type FakeMastodon, startFakeMastodon, testConfig } from './helpers.ts';
import { pkcePair } from './oauth-pkce-contract.ts';

let fake: FakeMastodon;
beforeAll(async () => {
  fake = await startFakeMastodon({ maxCharacters: 1000 });
});
afterAll(async () => {
  await fake.close();
});

const redirectUri = 'http://127.0.0.1:3000/oauth/callback/mastodon';

/** RegisteredApps as the domain keeps them (the first app kept for an instance stays). */
function memoryApps(): RegisteredApps & { kept: Map<string, RegisteredApp> } {
  const kept = new Map<string, RegisteredApp>();
  return {
    kept,
    async find(instance) {
      return kept.get(instance) ?? null;
    },
    async keep(instance, app) {
      const first = kept.get(instance);
      if (first) return first;
      kept.set(instance, app);
      return app;
    },
  };
}

function connector(allowPrivate = true): PlatformOAuth {
  const registry = createPlatformRegistry(testConfig({ mediaAllowPrivateNetworks: allowPrivate }));
  const oauth = registry.oauth('mastodon');
  if (!oauth) throw new Error('no mastodon connector');
  return oauth;
}

async function prepared(oauth: PlatformOAuth, apps: RegisteredApps, instance = fake.baseUrl) {
  const outcome = await oauth.prepare?.({ fields: { instance }, redirectUri, apps });
  if (!outcome?.ok) throw new Error(`not prepared: ${JSON.stringify(outcome)}`);
  return outcome.params;
}

/** Follows the consent URL like a browser would (the fake consents at once): the code. */
async function consentCode(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect: ${response.status} ${await response.text()}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

describe('mastodon connect: the app per instance', () => {
  it('registers the app on first use with our scopes and redirect URI, then reuses it', async () => {
    const oauth = connector();
    const apps = memoryApps();
    const before = fake.apps.length;
    const params = await prepared(oauth, apps, `${fake.baseUrl}/some/path?x=1`);
    expect(fake.apps).toHaveLength(before + 1);
    const app = fake.apps.at(-1);
    expect(app).toMatchObject({
      name: 'Social Publisher',
      redirectUris: redirectUri,
      scopes: 'read:accounts write:statuses write:media',
    });
    // The instance is its origin only, and the flow carries the app's client id (not its secret).
    expect(params).toEqual({ instance: fake.baseUrl, client_id: app?.clientId });
    expect(apps.kept.get(fake.baseUrl)).toEqual({
      clientId: app?.clientId,
      clientSecret: app?.clientSecret,
    });

    await prepared(oauth, apps);
    await prepared(connector(), apps);
    expect(fake.apps).toHaveLength(before + 1);
  });

  it('concurrent first connects register once', async () => {
    const oauth = connector();
    const apps = memoryApps();
    const before = fake.apps.length;
    const all = await Promise.all(Array.from({ length: 4 }, () => prepared(oauth, apps)));
    expect(fake.apps).toHaveLength(before + 1);
    expect(new Set(all.map((params) => params.client_id)).size).toBe(1);
  });

  it('a refused registration is a problem on `instance`, and nothing is kept', async () => {
    fake.script({ error: { status: 503, error: 'Service Unavailable' }, path: '/api/v1/apps' });
    const apps = memoryApps();
    const outcome = await connector().prepare?.({
      fields: { instance: fake.baseUrl },
      redirectUri,
      apps,
    });
    expect(outcome).toEqual({
      ok: false,
      problems: [
        {
          field: 'instance',
          message: expect.stringMatching(/could not register .*HTTP 503.*Service Unavailable/),
        },
      ],
    });
    expect(apps.kept.size).toBe(0);
  });
});

describe('mastodon connect: the instance URL', () => {
  const refused = async (instance: unknown, allowPrivate: boolean) => {
    const before = fake.requests.length;
    const outcome = await connector(allowPrivate).prepare?.({
      fields: { instance },
      redirectUri,
      apps: memoryApps(),
    });
    expect(fake.requests.length).toBe(before);
    if (outcome?.ok !== false) throw new Error('expected a refusal');
    return outcome.problems;
  };

  it('is refused when private or loopback while the media switch is off, naming no address', async () => {
    const problems = await refused(fake.baseUrl.replace('http:', 'https:'), false);
    expect(problems).toEqual([
      { field: 'instance', message: 'is refused: the host is a private or internal address' },
    ]);
    expect(await refused('https://localhost:8443', false)).toEqual([
      { field: 'instance', message: 'is refused: host localhost is a private or internal address' },
    ]);
    expect(await refused('https://10.1.2.3', false)).toEqual([
      { field: 'instance', message: 'is refused: the host is a private or internal address' },
    ]);
  });

  it('must be https unless the switch allows private networks (tests)', async () => {
    expect(await refused('http://mastodon.example', false)).toEqual([
      { field: 'instance', message: expect.stringMatching(/scheme http: is not allowed/) },
    ]);
    expect(await refused('not a url', true)).toEqual([
      { field: 'instance', message: expect.stringMatching(/not valid/) },
    ]);
    expect(await refused('', true)).toEqual([
      {
        field: 'instance',
        message: expect.stringMatching(/must be the URL of a Mastodon instance/),
      },
    ]);
    expect(await refused(42, true)).toHaveLength(1);
  });
});

describe('mastodon connect: consent and code exchange', () => {
  it('PKCE S256 on the instance; the connection keeps its instance and status length', async () => {
    const oauth = connector();
    const apps = memoryApps();
    const params = await prepared(oauth, apps);
    const { verifier, challenge } = pkcePair();
    const url = new URL(
      oauth.authorizationUrl({ state: 'st-1', redirectUri, codeChallenge: challenge, params }),
    );
    expect(url.origin + url.pathname).toBe(`${fake.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: params.client_id,
      redirect_uri: redirectUri,
      scope: 'read:accounts write:statuses write:media',
      state: 'st-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = await consentCode(url.toString());
    const from = fake.requests.length;
    const outcome = await oauth.connect({
      code,
      codeVerifier: verifier,
      redirectUri,
      params,
      apps,
    });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const host = new URL(fake.baseUrl).host;
    expect(outcome.identities).toEqual([
      {
        externalId: `${fake.account.id}@${host}`,
        displayName: `@fake@${host}`,
        tokens: {
          accessToken: expect.stringMatching(/^access-/),
          refreshToken: null,
          expiresAt: null,
          scopes: ['read:accounts', 'write:statuses', 'write:media'],
        },
        platformData: { instance: fake.baseUrl, maxCharacters: 1000 },
      },
    ]);
    const exchange = fake.requests.slice(from).find((r) => r.path === '/oauth/token');
    expect(exchange?.body).toMatchObject({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: params.client_id,
      redirect_uri: redirectUri,
    });
    // Mastodon tokens do not expire: nothing to renew.
    expect(oauth.refresh).toBeUndefined();
  });

  it('a wrong verifier fails the exchange without a secret in the message', async () => {
    const oauth = connector();
    const apps = memoryApps();
    const params = await prepared(oauth, apps);
    const { challenge } = pkcePair();
    const code = await consentCode(
      oauth.authorizationUrl({ state: 's', redirectUri, codeChallenge: challenge, params }),
    );
    const outcome = await oauth.connect({
      code,
      codeVerifier: pkcePair().verifier,
      redirectUri,
      params,
      apps,
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_grant' } });
    const secret = apps.kept.get(fake.baseUrl)?.clientSecret ?? 'none';
    expect(JSON.stringify(outcome)).not.toContain(secret);
    expect(JSON.stringify(outcome)).not.toContain(code);
  });

  it('a flow whose app is no longer kept is refused, not exchanged', async () => {
    const outcome = await connector().connect({
      code: 'code-x',
      codeVerifier: 'v',
      redirectUri,
      params: { instance: 'https://gone.example', client_id: 'c' },
      apps: memoryApps(),
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'app_not_registered' } });
  });
});
