// Reddit OAuth 2.0 over real HTTP against the local fake: the shared contract, then Reddit's own
// details (duration=permanent, space-separated scopes, HTTP Basic on the token endpoint of the
// consent host, a 200 that carries only `error`, the User-Agent on every call, the username kept
// for the publisher's lookups).
import { describe, expect, it } from 'vitest';
import { type FakeReddit, startFakeReddit } from './helpers.ts';
import {
  connectorFor,
  describePkceConnector,
  expectNoSecrets,
  pkcePair,
} from './oauth-pkce-contract.ts';

const flow = describePkceConnector<FakeReddit>({
  platform: 'reddit',
  prefix: 'REDDIT',
  start: () => startFakeReddit(),
  clientId: 'reddit-client-id',
  clientSecret: 'reddit-client-secret',
  authorizePath: '/api/v1/authorize',
  authorizeParams: {
    response_type: 'code',
    client_id: 'reddit-client-id',
    duration: 'permanent',
    scope: 'identity submit read edit',
  },
  externalId: '1abcd2ef',
  displayName: 'u/fake_redditor',
  rotates: false,
  badCodeError: 'invalid_grant',
  tokenHost: 'authBaseUrl',
});

const basic = `Basic ${Buffer.from('reddit-client-id:reddit-client-secret').toString('base64')}`;

describe('reddit OAuth: Reddit specifics', () => {
  it('HTTP Basic on /api/v1/access_token, our User-Agent on every call, the username kept', async () => {
    const fake = flow.fake();
    const from = fake.requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.identities).toEqual([
      expect.objectContaining({
        externalId: '1abcd2ef',
        displayName: 'u/fake_redditor',
        platformData: { username: 'fake_redditor' },
      }),
    ]);
    const seen = fake.requests.slice(from);
    const exchange = seen.find((r) => r.path === '/api/v1/access_token');
    expect(exchange?.headers.authorization).toBe(basic);
    expect(exchange?.body).toEqual({
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: verifier,
    });
    const me = seen.find((r) => r.path === '/api/v1/me');
    expect(me?.headers.authorization).toBe(`Bearer ${outcome.identities[0]?.tokens.accessToken}`);
    for (const request of seen.filter((r) => r.path !== '/api/v1/authorize')) {
      expect(request.headers['user-agent']).toBe('server:social-publisher:1.0 (self-hosted)');
    }
    expect(outcome.identities[0]?.tokens.scopes).toEqual(['identity', 'submit', 'read', 'edit']);

    const refreshToken = outcome.identities[0]?.tokens.refreshToken ?? '';
    const renewFrom = fake.requests.length;
    const renewed = await flow
      .connector()
      .refresh?.({ externalId: '1abcd2ef', accessToken: 'a', refreshToken });
    expect(renewed?.kind).toBe('refreshed');
    const renewal = fake.requests.slice(renewFrom).find((r) => r.path === '/api/v1/access_token');
    expect(renewal?.headers.authorization).toBe(basic);
    expect(renewal?.body).toEqual({ grant_type: 'refresh_token', refresh_token: refreshToken });
  });

  it('REDDIT_USER_AGENT is what Reddit sees', async () => {
    const custom = connectorFor('reddit', {
      ...flow.settings(),
      userAgent: 'web:com.example.publisher:2.1 (by /u/example)',
    });
    const fake = flow.fake();
    const from = fake.requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await custom.connect({
      code,
      codeVerifier: verifier,
      redirectUri: flow.redirectUri,
    });
    expect(outcome.ok).toBe(true);
    const agents = fake.requests.slice(from).filter((r) => r.path !== '/api/v1/authorize');
    expect(agents.map((r) => r.headers['user-agent'])).toEqual([
      'web:com.example.publisher:2.1 (by /u/example)',
      'web:com.example.publisher:2.1 (by /u/example)',
    ]);
  });

  it('a refused /api/v1/me fails the connect (401: refused), no token in it', async () => {
    flow.fake().script({ status: 401, body: { message: 'Unauthorized', error: 401 }, on: 'me' });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'http_401',
        message: expect.stringContaining('Reddit account (me): Unauthorized'),
      },
    });
    expectNoSecrets(flow.fake(), outcome, [code]);
  });

  it('wrong client credentials: the exchange fails, a refresh fails without expiring', async () => {
    const misconfigured = connectorFor('reddit', { ...flow.settings(), clientSecret: 'nope' });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await misconfigured.connect({
      code,
      codeVerifier: verifier,
      redirectUri: flow.redirectUri,
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'http_401' } });
    const { tokens } = await flow.connected();
    const refresh = await misconfigured.refresh?.({ externalId: 'x', ...tokens });
    expect(refresh).toMatchObject({ kind: 'failed' });
    expectNoSecrets(flow.fake(), [outcome, refresh], [code]);
  });
});
