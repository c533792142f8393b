// Facebook Login for Pages over real HTTP against the local fake: consent URL, code exchange,
// long-lived user token, granted permissions and /me/accounts -> one connection per Page with
// its Page token; zero Pages, denials and Graph errors, never leaking a code or token.
import type { PlatformOAuth } from '@social-publisher/domain';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import { type FacebookPage, type FakeFacebook, startFakeFacebook } from './helpers.ts';
import { pkcePair } from './oauth-pkce-contract.ts';

const REDIRECT = 'https://api.example.com/oauth/callback/facebook';
const CLIENT = { clientId: 'facebook-client-id', clientSecret: 'facebook-client-secret' };
const SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
];
const PAGES: FacebookPage[] = [
  { id: '102000000000001', name: 'Fake Bakery', category: 'Bakery' },
  { id: '102000000000002', name: 'Fake Bookshop', category: 'Book store' },
  { id: '102000000000003', name: 'Fake Café', category: 'Cafe' },
];

function connectorFor(baseUrl: string, overrides: Record<string, string | undefined> = {}) {
  const connector = createPlatformRegistry({
    settings: {
      facebook: {
        ...CLIENT,
        authBaseUrl: baseUrl,
        tokenBaseUrl: baseUrl,
        apiBaseUrl: baseUrl,
        graphVersion: 'v21.0',
        ...overrides,
      },
    },
  }).oauth('facebook');
  if (!connector) throw new Error('facebook has no OAuth connector');
  return connector;
}

async function consent(url: string): Promise<URL> {
  const response = await request(url, { method: 'GET' });
  await response.body.dump();
  expect(response.statusCode).toBe(302);
  return new URL(String(response.headers.location));
}

function expectNoSecrets(outcome: unknown, secrets: readonly string[]) {
  const text = JSON.stringify(outcome);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

let fake: FakeFacebook;
let connector: PlatformOAuth;
beforeAll(async () => {
  // Two Pages per /me/accounts answer: three Pages take two requests (cursor paging).
  fake = await startFakeFacebook({ accountsPageSize: 2 });
  connector = connectorFor(fake.baseUrl);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.pages.splice(0, fake.pages.length, ...PAGES);
  fake.declined.splice(0, fake.declined.length);
});

/** The flows' PKCE pair: Meta binds each code to the challenge sent with its consent. */
const PKCE = pkcePair();

async function codeFor(state = 'state-1', on: PlatformOAuth = connector) {
  const back = await consent(
    on.authorizationUrl({ state, redirectUri: REDIRECT, codeChallenge: PKCE.challenge }),
  );
  return back.searchParams.get('code') ?? '';
}

const connect = async (on: PlatformOAuth = connector) =>
  on.connect({ code: await codeFor('s', on), codeVerifier: PKCE.verifier, redirectUri: REDIRECT });

describe('facebook OAuth', () => {
  it('names the unset client variables; has no refresh (Page tokens do not expire)', () => {
    expect(connector.missingSettings).toEqual([]);
    const bare = createPlatformRegistry({ settings: {} }).oauth('facebook');
    expect(bare?.missingSettings).toEqual(['FACEBOOK_CLIENT_ID', 'FACEBOOK_CLIENT_SECRET']);
    expect(connector.refresh).toBeUndefined();
  });

  it('builds the dialog URL (PKCE S256); the browser comes back with code and state', async () => {
    const url = new URL(
      connector.authorizationUrl({ state: 'st-42', redirectUri: REDIRECT, codeChallenge: 'ch' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/v21.0/dialog/oauth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      state: 'st-42',
      scope: SCOPES.join(','),
      response_type: 'code',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    const back = await consent(url.toString());
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.hash).toBe('#_=_');
    expect(back.searchParams.get('state')).toBe('st-42');
    expect(back.searchParams.get('code')).toMatch(/^code-/);
  });

  it('connects one identity per Page, each with its own non-expiring Page token', async () => {
    const from = fake.requests.length;
    const code = await codeFor();
    const outcome = await connector.connect({
      code,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    if (!outcome.ok) throw new Error(`not connected: ${JSON.stringify(outcome)}`);
    expect(outcome.identities.map((i) => [i.externalId, i.displayName])).toEqual(
      PAGES.map((page) => [page.id, page.name]),
    );
    const userToken = fake.longLivedTokens.at(-1) ?? '';
    for (const identity of outcome.identities) {
      expect(fake.pageTokens.get(identity.tokens.accessToken)).toBe(identity.externalId);
      expect(identity.tokens).toMatchObject({
        refreshToken: null,
        expiresAt: null,
        scopes: SCOPES,
      });
      expect(identity.tokens.accessToken).not.toBe(userToken);
    }

    const calls = fake.requests.slice(from).filter((r) => r.path !== '/v21.0/dialog/oauth');
    const shortLived = fake.oauth.issued.at(-1)?.accessToken;
    expect(calls[0]).toMatchObject({
      method: 'GET',
      path: '/v21.0/oauth/access_token',
      query: {
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        code,
        redirect_uri: REDIRECT,
      },
    });
    expect(calls[1]).toMatchObject({
      path: '/v21.0/oauth/access_token',
      query: {
        grant_type: 'fb_exchange_token',
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        fb_exchange_token: shortLived,
      },
    });
    const accounts = calls.filter((r) => r.path === '/v21.0/me/accounts');
    expect(accounts).toHaveLength(2);
    expect(accounts[0]?.query).toMatchObject({
      fields: 'id,name,access_token',
      access_token: userToken,
    });
    expect(accounts[1]?.query.after).toBeTruthy();
  });

  it('scopes are the permissions granted, not those asked for', async () => {
    fake.declined.push('pages_read_engagement');
    const outcome = await connect();
    if (!outcome.ok) throw new Error('not connected');
    expect(outcome.identities[0]?.tokens.scopes).toEqual([
      'pages_show_list',
      'pages_manage_posts',
      'pages_manage_engagement',
    ]);
  });

  it('one Page -> one identity; zero Pages -> no_pages, nothing connected', async () => {
    fake.pages.splice(1);
    const one = await connect();
    expect(one).toMatchObject({ ok: true, identities: [{ externalId: PAGES[0]?.id }] });
    if (one.ok) expect(one.identities).toHaveLength(1);

    fake.pages.splice(0);
    const none = await connect();
    expect(none).toMatchObject({
      ok: false,
      error: {
        code: 'no_pages',
        message: expect.stringMatching(/^no Facebook Page was granted: /),
      },
    });
    expectNoSecrets(none, [
      String(fake.longLivedTokens.at(-1)),
      String(fake.oauth.issued.at(-1)?.accessToken),
    ]);
  });

  it('a denied consent comes back with error=access_denied and no code', async () => {
    fake.oauth.denyNextConsent('access_denied', 'Permissions error');
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
        error: { message: expect.stringContaining('code_verifier does not match') },
      });
      expectNoSecrets(injected, [code]);
    }
    const exchange = fake.requests.findLast((r) => r.path.endsWith('/oauth/access_token'));
    expect(JSON.stringify(exchange)).toContain('code_verifier');
  });

  it('a used code, a wrong secret or a wrong redirect_uri fail with Graph codes, no secret', async () => {
    const code = await codeFor();
    expect(
      (await connector.connect({ code, codeVerifier: PKCE.verifier, redirectUri: REDIRECT })).ok,
    ).toBe(true);
    const again = await connector.connect({
      code,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(again).toMatchObject({
      ok: false,
      error: {
        code: '100',
        message: expect.stringContaining('This authorization code has been used.'),
      },
    });
    expectNoSecrets(again, [code]);

    const wrong = connectorFor(fake.baseUrl, { clientSecret: 'wrong-secret' });
    const fresh = await codeFor('s', wrong);
    const badSecret = await wrong.connect({
      code: fresh,
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(badSecret).toMatchObject({
      ok: false,
      error: { code: '1', message: expect.stringContaining('Error validating client secret') },
    });
    expectNoSecrets(badSecret, [fresh, 'wrong-secret']);

    const mismatch = await connector.connect({
      code: await codeFor(),
      codeVerifier: PKCE.verifier,
      redirectUri: `${REDIRECT}/other`,
    });
    expect(mismatch).toMatchObject({ ok: false, error: { code: '100' } });
  });

  it('a Graph error while listing Pages ends the connect: 190, 5xx, or a dropped connection', async () => {
    fake.script({
      error: {
        code: 190,
        subcode: 460,
        message: 'Error validating access token: session invalidated',
      },
      on: 'accounts',
    });
    const invalid = await connect();
    expect(invalid).toMatchObject({ ok: false, error: { code: '190' } });
    expectNoSecrets(invalid, [String(fake.longLivedTokens.at(-1))]);

    fake.script({
      error: { code: 1, message: 'An unknown error has occurred.', isTransient: true, status: 500 },
      on: 'longLived',
    });
    const down = await connect();
    expect(down).toMatchObject({ ok: false, error: { code: '1' } });
    expectNoSecrets(down, [String(fake.oauth.issued.at(-1)?.accessToken)]);

    fake.script({ drop: true, on: 'permissions' });
    expect(await connect()).toMatchObject({ ok: false, error: { code: 'network_error' } });
  });

  it('an unreachable token host is a network error', async () => {
    const unreachable = connectorFor(fake.baseUrl, { tokenBaseUrl: 'http://127.0.0.1:9' });
    const outcome = await unreachable.connect({
      code: 'code-secret-value',
      codeVerifier: PKCE.verifier,
      redirectUri: REDIRECT,
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'network_error' } });
    expectNoSecrets(outcome, ['code-secret-value']);
  });
});
