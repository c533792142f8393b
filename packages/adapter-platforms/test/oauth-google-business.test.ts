// Google Business Profile OAuth over real HTTP against the local fake: the shared contract, then
// its own details (business.manage offline with prompt=consent, one connection per location of
// every account, paging, what ends a connect with no location or without the scope).
import { describe, expect, it } from 'vitest';
import {
  type FakeGoogleBusiness,
  GOOGLE_BUSINESS_ERRORS,
  startFakeGoogleBusiness,
} from './helpers.ts';
import { describePkceConnector, expectNoSecrets, pkcePair } from './oauth-pkce-contract.ts';

const SCOPE = 'https://www.googleapis.com/auth/business.manage';

const flow = describePkceConnector<FakeGoogleBusiness>({
  platform: 'google_business',
  prefix: 'GOOGLE_BUSINESS',
  start: () => startFakeGoogleBusiness(),
  clientId: 'google-business-client-id',
  clientSecret: 'google-business-client-secret',
  authorizePath: '/o/oauth2/v2/auth',
  authorizeParams: {
    response_type: 'code',
    client_id: 'google-business-client-id',
    scope: SCOPE,
    access_type: 'offline',
    prompt: 'consent',
  },
  externalId: 'locations/2000000000000000001',
  displayName: 'Fake Bakery Downtown',
  rotates: false,
  badCodeError: 'invalid_grant',
  moreHosts: ['accountsBaseUrl', 'locationsBaseUrl'],
});

async function connect() {
  const { verifier, challenge } = pkcePair();
  const code = await flow.codeFor(challenge);
  return {
    code,
    outcome: await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri }),
  };
}

describe('google_business OAuth: Business Profile specifics', () => {
  it('one connection per location of every account, each keeping its account; pages followed', async () => {
    const fake = flow.fake();
    const saved = fake.accounts.splice(0);
    try {
      const many = Array.from({ length: 103 }, (_, i) => ({
        name: `locations/3${String(i).padStart(3, '0')}`,
        title: `Shop ${i}`,
      }));
      fake.accounts.push(
        ...saved,
        { name: 'accounts/42', accountName: 'Chain', locations: many },
        { name: 'accounts/43', accountName: 'Empty', locations: [] },
      );
      const from = fake.requests.length;
      const { outcome } = await connect();
      if (!outcome.ok) throw new Error(outcome.error.message);
      expect(outcome.identities).toHaveLength(104);
      expect(outcome.identities[0]).toMatchObject({
        externalId: 'locations/2000000000000000001',
        displayName: 'Fake Bakery Downtown',
        platformData: { account: 'accounts/1000000000000000001' },
      });
      expect(outcome.identities[103]).toMatchObject({
        externalId: 'locations/3102',
        displayName: 'Shop 102',
        platformData: { account: 'accounts/42' },
      });
      const tokens = outcome.identities.map((i) => i.tokens.accessToken);
      expect(new Set(tokens).size).toBe(1);
      const reads = fake.requests.slice(from).filter((r) => r.path.startsWith('/v1/'));
      expect(reads.map((r) => `${r.path}?${new URLSearchParams(r.query).toString()}`)).toEqual([
        '/v1/accounts?pageSize=20',
        '/v1/accounts/1000000000000000001/locations?readMask=name%2Ctitle&pageSize=100',
        '/v1/accounts/42/locations?readMask=name%2Ctitle&pageSize=100',
        '/v1/accounts/42/locations?readMask=name%2Ctitle&pageSize=100&pageToken=100',
        '/v1/accounts/43/locations?readMask=name%2Ctitle&pageSize=100',
      ]);
      for (const read of reads) {
        expect(read.headers.authorization).toBe(`Bearer ${tokens[0]}`);
      }
    } finally {
      fake.accounts.splice(0, fake.accounts.length, ...saved);
    }
  });

  it('no location: the connect fails and says what to do', async () => {
    const fake = flow.fake();
    const saved = fake.accounts.splice(0);
    try {
      const { code, outcome } = await connect();
      expect(outcome).toMatchObject({
        ok: false,
        error: { code: 'no_locations', message: expect.stringContaining('add or claim one') },
      });
      expectNoSecrets(fake, outcome, [code]);
    } finally {
      fake.accounts.push(...saved);
    }
  });

  it('a refused listing fails with Google’s status, no token in it', async () => {
    flow.fake().script({ error: GOOGLE_BUSINESS_ERRORS.permissionDenied, on: 'accounts' });
    const { code, outcome } = await connect();
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'PERMISSION_DENIED',
        message: expect.stringContaining(
          'Google Business Profile accounts: The caller does not have permission',
        ),
      },
    });
    expectNoSecrets(flow.fake(), outcome, [code]);
  });

  it('a consent without business.manage is refused (granular consent)', async () => {
    const fake = flow.fake();
    const consent = fake.oauth.authorize({
      clientId: 'google-business-client-id',
      redirectUri: flow.redirectUri,
      state: 's',
      scope: 'openid email',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const code = new URL(consent.redirect).searchParams.get('code') ?? '';
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: 'unused', redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'scope_not_granted' } });
  });

  it('client id and secret go in the token form', async () => {
    const fake = flow.fake();
    const from = fake.requests.length;
    const { outcome } = await connect();
    expect(outcome.ok).toBe(true);
    const exchange = fake.requests.slice(from).find((r) => r.path === '/token');
    expect(exchange?.body).toMatchObject({
      grant_type: 'authorization_code',
      client_id: 'google-business-client-id',
      client_secret: 'google-business-client-secret',
    });
  });
});
