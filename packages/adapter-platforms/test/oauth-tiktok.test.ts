// TikTok Login Kit over real HTTP against the local fake: the shared contract, then TikTok's
// own wire details (client_key, comma-separated scopes, open_id, /v2/user/info/) and the proof
// that the connector and the publisher renew tokens through the same request.
import { describe, expect, it } from 'vitest';
import {
  expectPublished,
  type FakeTiktok,
  makeRequest,
  publisherFor,
  startFakeTiktok,
  testConfig,
} from './helpers.ts';
import {
  connectorFor,
  describePkceConnector,
  expectNoSecrets,
  pkcePair,
} from './oauth-pkce-contract.ts';

const flow = describePkceConnector<FakeTiktok>({
  platform: 'tiktok',
  prefix: 'TIKTOK',
  start: () => startFakeTiktok(),
  clientId: 'tiktok-client-key',
  clientSecret: 'tiktok-client-secret',
  authorizePath: '/v2/auth/authorize/',
  authorizeParams: {
    client_key: 'tiktok-client-key',
    scope: 'user.info.basic,video.publish,video.upload,video.list',
    response_type: 'code',
  },
  externalId: 'fake-open-id',
  displayName: 'Fake Creator',
  rotates: true,
  badCodeError: 'invalid_grant',
});

const tokenCalls = (from: number) =>
  flow
    .fake()
    .requests.slice(from)
    .filter((r) => r.path === '/v2/oauth/token/');

describe('tiktok OAuth: TikTok specifics', () => {
  it('exchanges the code as TikTok documents it (form with client_key, client_secret, code_verifier)', async () => {
    const from = flow.fake().requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome.ok).toBe(true);
    const [exchange] = tokenCalls(from);
    expect(exchange?.method).toBe('POST');
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.headers['cache-control']).toBe('no-cache');
    expect(exchange?.body).toEqual({
      client_key: 'tiktok-client-key',
      client_secret: 'tiktok-client-secret',
      code,
      grant_type: 'authorization_code',
      redirect_uri: flow.redirectUri,
      code_verifier: verifier,
    });
    const [info] = flow
      .fake()
      .requests.slice(from)
      .filter((r) => r.path === '/v2/user/info/');
    expect(info?.method).toBe('GET');
    expect(info?.query.fields).toBe('open_id,union_id,avatar_url,display_name');
    expect(info?.headers.authorization).toBe(
      `Bearer ${outcome.ok ? outcome.identities[0]?.tokens.accessToken : ''}`,
    );
  });

  it('a failed identity read fails the connect with TikTok’s code, no token in it', async () => {
    flow.fake().script({ error: 'scope_not_authorized', path: '/v2/user/info/' });
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'scope_not_authorized', message: expect.stringContaining('TikTok user info') },
    });
    expectNoSecrets(flow.fake(), outcome, [code]);
  });

  it('a token error in a 200 answer still counts as a refusal; a wrong client secret does not expire the connection', async () => {
    const { tokens } = await flow.connected();
    const connector = flow.connector();
    flow.fake().script({ tokenError: 'invalid_grant', status: 200 });
    const input = { externalId: 'fake-open-id', ...tokens };
    expect(await connector.refresh?.(input)).toMatchObject({ kind: 'refused' });

    const fresh = await flow.connected();
    const misconfigured = connectorFor('tiktok', {
      ...flow.settings(),
      clientSecret: 'not-the-secret',
    });
    const outcome = await misconfigured.refresh?.({ externalId: 'fake-open-id', ...fresh.tokens });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('invalid_client'),
    });
  });

  it('tokens of the OAuth flow publish; the publisher renews them through the same token request', async () => {
    const fake = flow.fake();
    const { tokens } = await flow.connected();
    const config = testConfig({
      tiktok: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'tiktok-client-key',
        clientSecret: 'tiktok-client-secret',
      },
    });
    const video = 'https://cdn.example.com/clips/launch.mp4';
    const first = makeRequest({
      platform: 'tiktok',
      mediaUrls: [video],
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
    });
    expectPublished(await publisherFor('tiktok', config).publish(first.request));
    expect(first.tokens).toHaveLength(0);

    // The access token is rejected: one renewal, the rotated tokens are stored, the call retried.
    fake.expireAccessToken(tokens.accessToken);
    const from = fake.requests.length;
    const second = makeRequest({
      platform: 'tiktok',
      mediaUrls: [video],
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
    });
    expectPublished(await publisherFor('tiktok', config).publish(second.request));
    const [renewal] = tokenCalls(from);
    expect(renewal?.body).toEqual({
      client_key: 'tiktok-client-key',
      client_secret: 'tiktok-client-secret',
      grant_type: 'refresh_token',
      refresh_token: tokens.refreshToken,
    });
    const stored = second.tokens[0];
    expect(stored?.accessToken).toBe(fake.oauth.issued.at(-1)?.accessToken);
    expect(stored?.refreshToken).toBe(fake.oauth.issued.at(-1)?.refreshToken);
    expect(stored?.refreshToken).not.toBe(tokens.refreshToken);

    // The spent refresh token is refused by the connector's refresh as well: one grant, one rule.
    const spent = await flow.connector().refresh?.({ externalId: 'fake-open-id', ...tokens });
    expect(spent?.kind).toBe('refused');
  });
});
