// Threads OAuth over real HTTP against the local fake: consent URL, code exchange, long-lived
// exchange (th_exchange_token), identity, renewal (th_refresh_token), and every failure, never
// leaking a code or token. The tokens obtained publish through the same fake.
import type { PlatformOAuth } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import {
  expectPublished,
  type FakeThreads,
  makeRequest,
  publisherFor,
  startFakeThreads,
  THREADS_LONG_LIVED_EXPIRES_IN,
  testConfig,
} from './helpers.ts';
import { consent, pkcePair } from './oauth-pkce-contract.ts';

const REDIRECT = 'https://api.example.com/oauth/callback/threads';
const CLIENT = { clientId: 'threads-client-id', clientSecret: 'threads-client-secret' };
const SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
  'threads_manage_insights',
  'threads_delete',
];

function connectorFor(baseUrl: string, overrides: Record<string, string | undefined> = {}) {
  const connector = createPlatformRegistry({
    settings: {
      threads: {
        ...CLIENT,
        authBaseUrl: baseUrl,
        tokenBaseUrl: baseUrl,
        apiBaseUrl: baseUrl,
        ...overrides,
      },
    },
  }).oauth('threads');
  if (!connector) throw new Error('threads has no OAuth connector');
  return connector;
}

/** No secret appears anywhere in an outcome (messages, reasons, codes). */
function expectNoSecrets(outcome: unknown, secrets: readonly string[]) {
  const text = JSON.stringify(outcome);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

let fake: FakeThreads;
let connector: PlatformOAuth;
beforeAll(async () => {
  fake = await startFakeThreads();
  connector = connectorFor(fake.baseUrl);
});
afterAll(() => fake.close());

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

describe('threads OAuth', () => {
  it('names the unset client variables', async () => {
    expect(connector.missingSettings).toEqual([]);
    const bare = createPlatformRegistry({ settings: {} }).oauth('threads');
    expect(bare?.missingSettings).toEqual(['THREADS_CLIENT_ID', 'THREADS_CLIENT_SECRET']);
    expect(connectorFor(fake.baseUrl, { clientSecret: undefined }).missingSettings).toEqual([
      'THREADS_CLIENT_SECRET',
    ]);
  });

  it('builds the consent URL (scopes, PKCE S256); the browser comes back with code and state', async () => {
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
    expect(back.searchParams.get('state')).toBe('st-42');
    expect(back.searchParams.get('code')).toMatch(/^code-/);
  });

  it('connects: code exchange, long-lived exchange, identity -> the profile with a 60-day token', async () => {
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
      identities: [{ externalId: fake.profile.id, displayName: '@fake_threads' }],
    });
    if (!outcome.ok) throw new Error('not connected');
    const tokens = outcome.identities[0]?.tokens;
    expect(tokens?.accessToken).toBe(fake.longLivedTokens.at(-1));
    expect(tokens?.refreshToken).toBeNull();
    expect(tokens?.scopes).toEqual(SCOPES);
    const expiresAt = tokens?.expiresAt?.getTime() ?? 0;
    expect(expiresAt).toBeGreaterThanOrEqual(before + THREADS_LONG_LIVED_EXPIRES_IN * 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + THREADS_LONG_LIVED_EXPIRES_IN * 1000);

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
        code_verifier: PKCE.verifier,
      },
    });
    expect(longLived).toMatchObject({
      method: 'GET',
      path: '/access_token',
      query: {
        grant_type: 'th_exchange_token',
        client_secret: CLIENT.clientSecret,
        access_token: fake.oauth.issued.at(-1)?.accessToken,
      },
    });
    expect(me).toMatchObject({
      path: '/v1.0/me',
      query: { fields: 'id,username,name', access_token: tokens?.accessToken },
    });
  });

  it('the connected token publishes through the same fake', async () => {
    const identity = await connected();
    const h = makeRequest({
      platform: 'threads',
      content: 'First post from a connected profile',
      accessToken: identity.tokens.accessToken,
      externalId: identity.externalId,
    });
    const publisher = publisherFor(
      'threads',
      testConfig({ threads: { apiBaseUrl: fake.baseUrl } }),
    );
    expectPublished(await publisher.publish(h.request));
    const create = fake.requests.findLast((r) => r.path.endsWith('/threads'));
    expect(create?.path).toBe(`/v1.0/${identity.externalId}/threads`);
    expect(create?.query.access_token).toBe(identity.tokens.accessToken);
  });

  it('a denied consent comes back with error=access_denied and no code', async () => {
    fake.oauth.denyNextConsent('access_denied', 'The user denied your request.');
    const back = await consent(
      connector.authorizationUrl({ state: 'st-d', redirectUri: REDIRECT, codeChallenge: 'c' }),
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-d');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it("a used code, another flow's verifier and a wrong secret fail with Meta's error, no secret", async () => {
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
      error: { code: '100', message: expect.stringContaining('already used') },
    });
    expectNoSecrets(again, [code, identity.tokens.accessToken]);

    const fresh = await codeFor();
    const injected = await connector.connect({
      code: fresh,
      codeVerifier: pkcePair().verifier,
      redirectUri: REDIRECT,
    });
    expect(injected).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('Invalid code_verifier') },
    });
    expectNoSecrets(injected, [fresh]);

    const wrongSecret = connectorFor(fake.baseUrl, { clientSecret: 'nope-secret' });
    const other = await codeFor('s', wrongSecret);
    const refused = await wrongSecret.connect({
      code: other,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: '1' } });
    expectNoSecrets(refused, [other, 'nope-secret']);
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

  it('refreshes with th_refresh_token: a new 60-day token, no refresh token', async () => {
    const identity = await connected();
    const renewed = await connector.refresh?.({
      externalId: identity.externalId,
      accessToken: identity.tokens.accessToken,
      refreshToken: null,
    });
    if (renewed?.kind !== 'refreshed') throw new Error(`not renewed: ${JSON.stringify(renewed)}`);
    expect(renewed.tokens.accessToken).toBe(fake.longLivedTokens.at(-1));
    expect(renewed.tokens.accessToken).not.toBe(identity.tokens.accessToken);
    expect(renewed.tokens.refreshToken).toBeNull();
    expect(renewed.tokens.expiresAt?.getTime()).toBeGreaterThan(
      Date.now() + (THREADS_LONG_LIVED_EXPIRES_IN - 60) * 1000,
    );
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/refresh_access_token',
      query: { grant_type: 'th_refresh_token', access_token: identity.tokens.accessToken },
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

    const unreachable = connectorFor(fake.baseUrl, { tokenBaseUrl: 'http://127.0.0.1:9' });
    const failed = await unreachable.refresh?.({ ...input, accessToken: 'THAA-secret-value' });
    expect(failed).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('network_error'),
    });
    expectNoSecrets(failed, ['THAA-secret-value']);
    const connect = await unreachable.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(connect).toMatchObject({ ok: false, error: { code: 'network_error' } });
  });
});
