import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import { type FakeBluesky, startFakeBluesky, testConfig } from './helpers.ts';

let fake: FakeBluesky;
beforeAll(async () => {
  fake = await startFakeBluesky();
});
afterAll(async () => {
  await fake.close();
});

const connector = (serviceUrl = fake.baseUrl) => {
  const registry = createPlatformRegistry(testConfig({ bluesky: { serviceUrl } }));
  const credentials = registry.credentials('bluesky');
  if (!credentials) throw new Error('bluesky connects by credentials');
  return credentials;
};

describe('bluesky credentials', () => {
  it('declares handle and app_password (the password a secret), and no OAuth', () => {
    const registry = createPlatformRegistry(testConfig());
    expect(registry.oauth('bluesky')).toBeUndefined();
    expect(connector().fields.map(({ name, secret }) => ({ name, secret }))).toEqual([
      { name: 'handle', secret: false },
      { name: 'app_password', secret: true },
    ]);
  });

  it('createSession: the DID is the identity, the handle its name, the JWT exp its expiry', async () => {
    const outcome = await connector().connect({
      handle: `@${fake.account.handle}`,
      app_password: fake.account.appPassword,
    });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
    const { identity } = outcome;
    expect(identity).toMatchObject({
      externalId: fake.account.did,
      displayName: fake.account.handle,
    });
    const expiresAt = identity.tokens.expiresAt?.getTime() ?? 0;
    expect(Math.abs(expiresAt - (Date.now() + 7_200_000))).toBeLessThan(5_000);
    expect(identity.tokens.refreshToken).toMatch(/\./);
    expect(fake.requests.at(-1)?.body).toEqual({
      identifier: fake.account.handle,
      password: fake.account.appPassword,
    });
  });

  it("a wrong app password is refused with Bluesky's own code, not as an outage", async () => {
    const outcome = await connector().connect({
      handle: fake.account.handle,
      app_password: 'wrong-pass-word-here',
    });
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'AuthenticationRequired',
        message: 'Invalid identifier or password',
        transient: false,
      },
    });
  });

  it('an unreachable service or a 5xx is transient', async () => {
    const down = await connector('http://127.0.0.1:9').connect({ handle: 'a', app_password: 'b' });
    expect(down).toMatchObject({ ok: false, error: { transient: true } });
    fake.script({
      error: { status: 502, error: 'UpstreamFailure', message: 'bad gateway' },
      nsid: 'com.atproto.server.createSession',
    });
    const failing = await connector().connect({ handle: 'a', app_password: 'b' });
    expect(failing).toMatchObject({
      ok: false,
      error: { code: 'UpstreamFailure', transient: true },
    });
  });

  it('refresh rotates the refresh JWT; a spent one is refused for good', async () => {
    const session = fake.issueSession();
    const input = {
      externalId: session.did,
      accessToken: session.accessJwt,
      refreshToken: session.refreshJwt,
    };
    const refreshed = await connector().refresh?.(input);
    expect(refreshed?.kind).toBe('refreshed');
    if (refreshed?.kind === 'refreshed') {
      expect(refreshed.tokens.refreshToken).not.toBe(session.refreshJwt);
      expect(refreshed.tokens.expiresAt?.getTime()).toBeGreaterThan(Date.now());
    }
    expect(await connector().refresh?.(input)).toMatchObject({ kind: 'refused' });
    const down = await connector('http://127.0.0.1:9').refresh?.(input);
    expect(down).toMatchObject({ kind: 'failed' });
  });
});
