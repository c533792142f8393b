// Instagram API with Instagram Login over real HTTP against the local fake: consent URL, code
// exchange, long-lived exchange, identity, renewal with ig_refresh_token, and every failure,
// never leaking a code or token. The tokens obtained publish through the same fake.
import type { PlatformOAuth } from '@social-publisher/domain';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import {
  expectPublished,
  type FakeInstagram,
  INSTAGRAM_LONG_LIVED_EXPIRES_IN,
  makeRequest,
  publisherFor,
  startFakeInstagram,
  testConfig,
} from './helpers.ts';
import { pkcePair } from './oauth-pkce-contract.ts';

const REDIRECT = 'https://api.example.com/oauth/callback/instagram';
const CLIENT = { clientId: 'instagram-client-id', clientSecret: 'instagram-client-secret' };
const SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
  'instagram_business_manage_comments',
];

const settingsFor = (baseUrl: string, overrides: Record<string, string | undefined> = {}) => ({
  ...CLIENT,
  authBaseUrl: baseUrl,
  tokenBaseUrl: baseUrl,
  apiBaseUrl: baseUrl,
  graphVersion: 'v21.0',
  ...overrides,
});

function connectorFor(baseUrl: string, overrides: Record<string, string | undefined> = {}) {
  const connector = createPlatformRegistry({
    settings: { instagram: settingsFor(baseUrl, overrides) },
  }).oauth('instagram');
  if (!connector) throw new Error('instagram has no OAuth connector');
  return connector;
}

/** Follows the consent URL as a browser would: the fake answers 302 back to the callback. */
async function consent(url: string): Promise<URL> {
  const response = await request(url, { method: 'GET' });
  await response.body.dump();
  expect(response.statusCode).toBe(302);
  return new URL(String(response.headers.location));
}

/** No secret appears anywhere in an outcome (messages, reasons, codes). */
function expectNoSecrets(outcome: unknown, secrets: readonly string[]) {
  const text = JSON.stringify(outcome);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

let fake: FakeInstagram;
let connector: PlatformOAuth;
beforeAll(async () => {
  fake = await startFakeInstagram();
  connector = connectorFor(fake.baseUrl);
});
afterAll(() => fake.close());

/** The flows' PKCE pair: Meta binds each code to the challenge sent with its consent. */
const PKCE = pkcePair();

async function codeFor(state = 'state-1', on: PlatformOAuth = connector) {
  const back = await consent(
    on.authorizationUrl({ state, redirectUri: REDIRECT, codeChallenge: PKCE.challenge }),
  );
  return back.searchParams.get('code') ?? '';
}

async function connected() {
  const outcome = await connector.connect({
    code: await codeFor(),
    codeVerifier: PKCE.verifier,
    redirectUri: REDIRECT,
  });
  if (!outcome.ok) throw new Error(`not connected: ${JSON.stringify(outcome)}`);
  const [identity] = outcome.identities;
  if (!identity) throw new Error('no identity');
  return identity;
}

describe('instagram OAuth', () => {
  it('names the unset client variables', () => {
    expect(connector.missingSettings).toEqual([]);
    const bare = createPlatformRegistry({ settings: {} }).oauth('instagram');
    expect(bare?.missingSettings).toEqual(['INSTAGRAM_CLIENT_ID', 'INSTAGRAM_CLIENT_SECRET']);
    expect(connectorFor(fake.baseUrl, { clientSecret: undefined }).missingSettings).toEqual([
      'INSTAGRAM_CLIENT_SECRET',
    ]);
  });

  it('builds the Business Login consent URL (PKCE S256); the browser comes back with code and state', async () => {
    const url = new URL(
      connector.authorizationUrl({ state: 'st-42', redirectUri: REDIRECT, codeChallenge: 'ch' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: SCOPES.join(','),
      state: 'st-42',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    const back = await consent(url.toString());
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.hash).toBe('#_');
    expect(back.searchParams.get('state')).toBe('st-42');
    expect(back.searchParams.get('code')).toMatch(/^code-/);
  });

  it('connects: code exchange, long-lived exchange, identity -> one account with a 60-day token', async () => {
    const from = fake.requests.length;
    const code = await codeFor();
    const before = Date.now();
    const outcome = await connector.connect({
      code,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(outcome).toMatchObject({
      ok: true,
      identities: [{ externalId: fake.account.user_id, displayName: '@fake_business' }],
    });
    if (!outcome.ok) throw new Error('not connected');
    expect(outcome.identities).toHaveLength(1);
    const tokens = outcome.identities[0]?.tokens;
    expect(tokens?.accessToken).toBe(fake.longLivedTokens.at(-1));
    expect(tokens?.refreshToken).toBeNull();
    expect(tokens?.scopes).toEqual(SCOPES);
    const expiresAt = tokens?.expiresAt?.getTime() ?? 0;
    expect(expiresAt).toBeGreaterThanOrEqual(before + INSTAGRAM_LONG_LIVED_EXPIRES_IN * 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + INSTAGRAM_LONG_LIVED_EXPIRES_IN * 1000);

    const [exchange, longLived, me] = fake.requests
      .slice(from)
      .filter((r) => r.path !== '/oauth/authorize');
    expect(exchange).toMatchObject({
      method: 'POST',
      path: '/oauth/access_token',
      body: {
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        grant_type: 'authorization_code',
        redirect_uri: REDIRECT,
        code,
      },
    });
    const shortLived = fake.oauth.issued.at(-1)?.accessToken;
    expect(longLived).toMatchObject({
      method: 'GET',
      path: '/access_token',
      query: {
        grant_type: 'ig_exchange_token',
        client_secret: CLIENT.clientSecret,
        access_token: shortLived,
      },
    });
    expect(me).toMatchObject({
      path: '/v21.0/me',
      query: { fields: 'user_id,username', access_token: tokens?.accessToken },
    });
  });

  it('the connected token publishes through the same fake', async () => {
    const identity = await connected();
    const h = makeRequest({
      platform: 'instagram',
      mediaUrls: ['https://cdn.example.com/photo.jpg'],
      accessToken: identity.tokens.accessToken,
      externalId: identity.externalId,
    });
    const publisher = publisherFor(
      'instagram',
      testConfig({ instagram: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } }),
    );
    expectPublished(await publisher.publish(h.request));
    const create = fake.requests.findLast((r) => r.path.endsWith('/media'));
    expect(create?.path).toBe(`/v21.0/${identity.externalId}/media`);
    expect(create?.query.access_token).toBe(identity.tokens.accessToken);
  });

  it('reads the older flat answer, with user_id as a bare int64', async () => {
    const flat = await startFakeInstagram({
      tokenShape: 'flat',
      account: { user_id: '17841405793187218', username: 'big_id' },
    });
    try {
      const on = connectorFor(flat.baseUrl);
      const outcome = await on.connect({
        code: await codeFor('s', on),
        codeVerifier: PKCE.verifier,
        redirectUri: REDIRECT,
      });
      expect(outcome).toMatchObject({
        ok: true,
        identities: [{ externalId: '17841405793187218', displayName: '@big_id' }],
      });
    } finally {
      await flat.close();
    }
  });

  it('a denied consent comes back with error=access_denied and no code', async () => {
    fake.oauth.denyNextConsent('access_denied', 'The user denied your request.');
    const back = await consent(
      connector.authorizationUrl({ state: 'st-d', redirectUri: REDIRECT, codeChallenge: 'c' }),
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_reason')).toBe('user_denied');
    expect(back.searchParams.get('state')).toBe('st-d');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it("PKCE: a code redeemed with another flow's verifier (or none) is refused, no secret", async () => {
    for (const codeVerifier of [pkcePair().verifier, '']) {
      const code = await codeFor();
      const injected = await connector.connect({ code, codeVerifier, redirectUri: REDIRECT });
      expect(injected).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('Invalid code_verifier') },
      });
      expectNoSecrets(injected, [code]);
    }
    const exchange = fake.requests.findLast((r) => r.path.endsWith('/oauth/access_token'));
    expect(JSON.stringify(exchange)).toContain('code_verifier');
  });

  it('a used code, a wrong secret and a scripted refusal fail with the platform error, no secret', async () => {
    const identity = await connected();
    const used = fake.requests.findLast((r) => r.path === '/oauth/access_token');
    const code = String((used?.body as Record<string, string> | undefined)?.code);
    const again = await connector.connect({
      code,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(again).toMatchObject({
      ok: false,
      error: {
        code: 'OAuthException',
        message: expect.stringContaining('Matching code was not found or was already used'),
      },
    });
    expectNoSecrets(again, [code, identity.tokens.accessToken]);

    const wrongSecret = connectorFor(fake.baseUrl, { clientSecret: 'nope-secret' });
    const fresh = await codeFor('s', wrongSecret);
    const refused = await wrongSecret.connect({
      code: fresh,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'OAuthException', message: expect.stringContaining('Invalid platform app') },
    });
    expectNoSecrets(refused, [fresh, 'nope-secret']);

    fake.oauth.failNextExchange('invalid_request', 'Scripted refusal', 400);
    const scripted = await connector.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(scripted).toMatchObject({
      ok: false,
      error: { code: 'OAuthException', message: expect.stringContaining('Scripted refusal') },
    });
  });

  it('a failing long-lived exchange or identity ends the connect without leaking the tokens', async () => {
    fake.script({
      error: {
        code: 2,
        message: 'Service temporarily unavailable',
        isTransient: true,
        status: 503,
      },
      on: 'longLived',
    });
    const failed = await connector.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(failed).toMatchObject({
      ok: false,
      error: { code: '2', message: expect.stringContaining('Service temporarily unavailable') },
    });
    expectNoSecrets(failed, [String(fake.oauth.issued.at(-1)?.accessToken)]);

    fake.script({ error: { code: 190, message: 'Invalid OAuth access token' }, on: 'me' });
    const noIdentity = await connector.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(noIdentity).toMatchObject({ ok: false, error: { code: '190' } });
    expectNoSecrets(noIdentity, [String(fake.longLivedTokens.at(-1))]);
  });

  it('refreshes with ig_refresh_token: a new 60-day token, no refresh token', async () => {
    const identity = await connected();
    const input = {
      externalId: identity.externalId,
      accessToken: identity.tokens.accessToken,
      refreshToken: null,
    };
    const renewed = await connector.refresh?.(input);
    expect(renewed?.kind).toBe('refreshed');
    if (renewed?.kind !== 'refreshed') throw new Error('not renewed');
    expect(renewed.tokens.accessToken).toBe(fake.longLivedTokens.at(-1));
    expect(renewed.tokens.accessToken).not.toBe(identity.tokens.accessToken);
    expect(renewed.tokens.refreshToken).toBeNull();
    expect(renewed.tokens.expiresAt?.getTime()).toBeGreaterThan(
      Date.now() + (INSTAGRAM_LONG_LIVED_EXPIRES_IN - 60) * 1000,
    );
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/refresh_access_token',
      query: { grant_type: 'ig_refresh_token', access_token: identity.tokens.accessToken },
    });
  });

  it('a revoked token is refused (190); a 500 or an unreachable host is a transient failure', async () => {
    const identity = await connected();
    const input = {
      externalId: identity.externalId,
      accessToken: identity.tokens.accessToken,
      refreshToken: null,
    };
    fake.script({
      error: { code: 1, message: 'An unknown error has occurred.', status: 500 },
      on: 'refresh',
    });
    const down = await connector.refresh?.(input);
    expect(down).toMatchObject({ kind: 'failed' });
    expectNoSecrets(down, [input.accessToken]);

    fake.expireAccessToken(input.accessToken);
    const refused = await connector.refresh?.(input);
    expect(refused).toMatchObject({ kind: 'refused', reason: expect.stringContaining('190') });
    expectNoSecrets(refused, [input.accessToken]);

    const unreachable = connectorFor(fake.baseUrl, { apiBaseUrl: 'http://127.0.0.1:9' });
    const failed = await unreachable.refresh?.({ ...input, accessToken: 'IGAA-secret-value' });
    expect(failed).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('network_error'),
    });
    expectNoSecrets(failed, ['IGAA-secret-value']);
    const connect = await unreachable.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(connect).toMatchObject({ ok: false, error: { code: 'network_error' } });
  });
});
