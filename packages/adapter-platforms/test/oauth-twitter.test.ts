// X (platform `twitter`) OAuth 2.0 with PKCE over real HTTP against the local fake: the shared
// contract, then X's own details (PKCE required, HTTP Basic client authentication, rotating
// refresh tokens refused as `invalid_request`, /2/users/me).
import { describe, expect, it } from 'vitest';
import { type FakeX, startFakeX } from './helpers.ts';
import {
  connectorFor,
  consent,
  describePkceConnector,
  expectNoSecrets,
  pkcePair,
} from './oauth-pkce-contract.ts';

const flow = describePkceConnector<FakeX>({
  platform: 'twitter',
  prefix: 'X',
  start: () => startFakeX(),
  clientId: 'x-client-id',
  clientSecret: 'x-client-secret',
  authorizePath: '/i/oauth2/authorize',
  authorizeParams: {
    response_type: 'code',
    client_id: 'x-client-id',
    scope: 'tweet.read tweet.write users.read media.write tweet.moderate.write offline.access',
  },
  externalId: '1460000000000000001',
  displayName: '@fake_account',
  rotates: true,
  // X answers 400 invalid_request "Value passed for the authorization code was invalid."
  badCodeError: 'invalid_request',
});

const basic = `Basic ${Buffer.from('x-client-id:x-client-secret').toString('base64')}`;

describe('twitter OAuth: X specifics', () => {
  it('authenticates with HTTP Basic, sends client_id and the verifier in the form, never the secret', async () => {
    const fake = flow.fake();
    const from = fake.requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome.ok).toBe(true);
    const seen = fake.requests.slice(from);
    const exchange = seen.find((r) => r.path === '/2/oauth2/token');
    expect(exchange?.headers.authorization).toBe(basic);
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.body).toEqual({
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: verifier,
      client_id: 'x-client-id',
    });
    const me = seen.find((r) => r.path === '/2/users/me');
    expect(me?.method).toBe('GET');

    if (!outcome.ok) throw new Error('not connected');
    const refreshToken = outcome.identities[0]?.tokens.refreshToken ?? '';
    const renewFrom = fake.requests.length;
    await flow.connector().refresh?.({
      externalId: '1460000000000000001',
      accessToken: 'a',
      refreshToken,
    });
    const renewal = fake.requests.slice(renewFrom).find((r) => r.path === '/2/oauth2/token');
    expect(renewal?.headers.authorization).toBe(basic);
    expect(renewal?.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'x-client-id',
    });
  });

  it('PKCE is required: a consent without a code challenge comes back with an error', async () => {
    const url = new URL(
      flow.connector().authorizationUrl({
        state: 'st-1',
        redirectUri: flow.redirectUri,
        codeChallenge: pkcePair().challenge,
      }),
    );
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const back = await consent(url.toString());
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a spent refresh token is refused as X refuses it (invalid_request "Value passed for the token was invalid.")', async () => {
    const { tokens } = await flow.connected();
    const input = { externalId: '1460000000000000001', ...tokens };
    const renewed = await flow.connector().refresh?.(input);
    expect(renewed?.kind).toBe('refreshed');
    const spent = await flow.connector().refresh?.(input);
    expect(spent).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('Value passed for the token was invalid'),
    });
    // A malformed request is not a reason to expire the connection.
    flow
      .fake()
      .oauth.failNextRefresh('invalid_request', 'Missing required parameter [grant_type].', 400);
    const current = renewed?.kind === 'refreshed' ? renewed.tokens : tokens;
    expect(await flow.connector().refresh?.({ ...input, ...current })).toMatchObject({
      kind: 'failed',
    });
  });

  it('wrong client credentials: the exchange fails with unauthorized_client, a refresh fails without expiring', async () => {
    const misconfigured = connectorFor('twitter', {
      ...flow.settings(),
      clientSecret: 'not-the-secret',
    });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await misconfigured.connect({
      code,
      codeVerifier: verifier,
      redirectUri: flow.redirectUri,
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unauthorized_client' } });
    const { tokens } = await flow.connected();
    const refresh = await misconfigured.refresh?.({ externalId: 'x', ...tokens });
    expect(refresh).toMatchObject({ kind: 'failed' });
    expectNoSecrets(flow.fake(), [outcome, refresh], [code]);
  });

  it('a rejected identity read fails the connect with X’s problem title', async () => {
    flow.fake().script({
      error: { status: 401, title: 'Unauthorized', detail: 'Unauthorized' },
      path: '/2/users/me',
    });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'Unauthorized', message: expect.stringContaining('X identity') },
    });
    expectNoSecrets(flow.fake(), outcome, [code]);
  });

  it('the fake answers 401 in X’s problem format to a token it did not issue or that expired', async () => {
    const fake = flow.fake();
    const { tokens } = await flow.connected();
    const me = (token: string) =>
      fetch(`${fake.baseUrl}/2/users/me`, { headers: { authorization: `Bearer ${token}` } });
    const ok = await me(tokens.accessToken);
    expect(await ok.json()).toEqual({
      data: { id: '1460000000000000001', name: 'Fake Account', username: 'fake_account' },
    });
    fake.expireAccessToken(tokens.accessToken);
    for (const token of [tokens.accessToken, 'made-up']) {
      const answer = await me(token);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual({
        title: 'Unauthorized',
        type: 'about:blank',
        status: 401,
        detail: 'Unauthorized',
      });
    }
  });
});
