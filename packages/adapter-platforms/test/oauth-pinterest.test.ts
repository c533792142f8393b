// Pinterest OAuth 2.0 over real HTTP against the local fake: the shared contract, then
// Pinterest's own details (HTTP Basic client authentication on POST /v5/oauth/token, comma-separated
// scopes, the user from GET /v5/user_account, `{ code, message }` refusals).
import { describe, expect, it } from 'vitest';
import { type FakePinterest, PINTEREST_ERRORS, startFakePinterest } from './helpers.ts';
import {
  connectorFor,
  describePkceConnector,
  expectNoSecrets,
  pkcePair,
} from './oauth-pkce-contract.ts';

const flow = describePkceConnector<FakePinterest>({
  platform: 'pinterest',
  prefix: 'PINTEREST',
  start: () => startFakePinterest(),
  clientId: 'pinterest-client-id',
  clientSecret: 'pinterest-client-secret',
  authorizePath: '/oauth/',
  authorizeParams: {
    response_type: 'code',
    client_id: 'pinterest-client-id',
    scope: 'boards:read,pins:read,pins:write,user_accounts:read',
  },
  externalId: '1111111111111111111',
  displayName: 'fake_pinner',
  rotates: false,
  badCodeError: 'invalid_grant',
});

const basic = `Basic ${Buffer.from('pinterest-client-id:pinterest-client-secret').toString('base64')}`;

describe('pinterest OAuth: Pinterest specifics', () => {
  it('authenticates with HTTP Basic only (no client id or secret in the form), both grants', async () => {
    const fake = flow.fake();
    const from = fake.requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    if (!outcome.ok) throw new Error(outcome.error.message);
    const seen = fake.requests.slice(from);
    const exchange = seen.find((r) => r.path === '/v5/oauth/token');
    expect(exchange?.headers.authorization).toBe(basic);
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.body).toEqual({
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: verifier,
    });
    const account = seen.find((r) => r.path === '/v5/user_account');
    expect(account?.method).toBe('GET');
    expect(account?.headers.authorization).toBe(
      `Bearer ${outcome.identities[0]?.tokens.accessToken}`,
    );
    // Pinterest answers its scopes comma-separated.
    expect(outcome.identities[0]?.tokens.scopes).toEqual([
      'boards:read',
      'pins:read',
      'pins:write',
      'user_accounts:read',
    ]);

    const refreshToken = outcome.identities[0]?.tokens.refreshToken ?? '';
    const renewFrom = fake.requests.length;
    const renewed = await flow.connector().refresh?.({
      externalId: '1111111111111111111',
      accessToken: 'a',
      refreshToken,
    });
    expect(renewed?.kind).toBe('refreshed');
    const renewal = fake.requests.slice(renewFrom).find((r) => r.path === '/v5/oauth/token');
    expect(renewal?.headers.authorization).toBe(basic);
    expect(renewal?.body).toEqual({ grant_type: 'refresh_token', refresh_token: refreshToken });
  });

  it('the username stands in when the account answer has no id', async () => {
    const fake = flow.fake();
    const { id } = fake.user;
    (fake.user as { id: string | undefined }).id = undefined;
    try {
      const identity = await flow.connected();
      expect(identity).toMatchObject({ externalId: 'fake_pinner', displayName: 'fake_pinner' });
    } finally {
      fake.user.id = id;
    }
  });

  it("a refused account read fails the connect with Pinterest's code, no token in it", async () => {
    flow.fake().script({ error: PINTEREST_ERRORS.authenticationFailed, on: 'userAccount' });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'pinterest_2',
        message: expect.stringContaining('Pinterest user account: Authentication failed.'),
      },
    });
    expectNoSecrets(flow.fake(), outcome, [code]);
  });

  it('wrong client credentials: the exchange fails with invalid_client, a refresh fails without expiring', async () => {
    const misconfigured = connectorFor('pinterest', {
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
    expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_client' } });
    const { tokens } = await flow.connected();
    const refresh = await misconfigured.refresh?.({ externalId: 'x', ...tokens });
    expect(refresh).toMatchObject({ kind: 'failed' });
    expectNoSecrets(flow.fake(), [outcome, refresh], [code]);
  });
});
