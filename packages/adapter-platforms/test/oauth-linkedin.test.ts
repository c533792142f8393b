// LinkedIn OAuth over real HTTP against the local fake: consent URL, code exchange, the member
// from /v2/userinfo and, with the organization scopes, one connection per administered
// organization; refresh tokens (approved apps), denials and API errors, never leaking a secret.
import type { PlatformOAuth } from '@social-publisher/domain';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import {
  type FakeLinkedin,
  LINKEDIN_ACCESS_EXPIRES_IN,
  LINKEDIN_ERRORS,
  type LinkedinOrganization,
  startFakeLinkedin,
} from './helpers.ts';

const REDIRECT = 'https://api.example.com/oauth/callback/linkedin';
const CLIENT = { clientId: 'linkedin-client-id', clientSecret: 'linkedin-client-secret' };
const MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'];
const ALL_SCOPES = [
  ...MEMBER_SCOPES,
  'w_organization_social',
  'rw_organization_admin',
  'r_organization_social',
];
const ORGANIZATIONS: LinkedinOrganization[] = [
  { id: '2414183', localizedName: 'Fake Company', vanityName: 'fake-company' },
  { id: '5550001', localizedName: 'Fake Foundation', vanityName: 'fake-foundation' },
  // Not connected: another role, or a role not approved yet.
  { id: '5550002', localizedName: 'Analysed Inc', vanityName: 'analysed', role: 'ANALYST' },
  { id: '5550003', localizedName: 'Pending Ltd', vanityName: 'pending', state: 'REQUESTED' },
];

function connectorFor(baseUrl: string, overrides: Record<string, string | undefined> = {}) {
  const connector = createPlatformRegistry({
    settings: {
      linkedin: {
        ...CLIENT,
        authBaseUrl: baseUrl,
        tokenBaseUrl: baseUrl,
        apiBaseUrl: baseUrl,
        apiVersion: '202505',
        organizations: 'true',
        ...overrides,
      },
    },
  }).oauth('linkedin');
  if (!connector) throw new Error('linkedin has no OAuth connector');
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

let fake: FakeLinkedin;
let connector: PlatformOAuth;
beforeAll(async () => {
  fake = await startFakeLinkedin({ organizations: ORGANIZATIONS, retiredVersions: ['202401'] });
  connector = connectorFor(fake.baseUrl);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.organizations.splice(0, fake.organizations.length, ...ORGANIZATIONS);
});

async function codeFor(state = 'state-1', on: PlatformOAuth = connector) {
  const back = await consent(
    on.authorizationUrl({ state, redirectUri: REDIRECT, codeChallenge: 'ignored' }),
  );
  return back.searchParams.get('code') ?? '';
}

const connect = async (on: PlatformOAuth = connector) =>
  on.connect({ code: await codeFor('s', on), codeVerifier: 'unused', redirectUri: REDIRECT });

describe('linkedin OAuth', () => {
  it('names the unset client variables', () => {
    expect(connector.missingSettings).toEqual([]);
    const bare = createPlatformRegistry({ settings: {} }).oauth('linkedin');
    expect(bare?.missingSettings).toEqual(['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']);
  });

  it('builds the consent URL (space-separated scopes, no PKCE); the browser comes back with code and state', async () => {
    const raw = connector.authorizationUrl({
      state: 'st-42',
      redirectUri: REDIRECT,
      codeChallenge: 'ch',
    });
    expect(raw).toContain(`scope=${ALL_SCOPES.join('%20')}`);
    const url = new URL(raw);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/oauth/v2/authorization`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      state: 'st-42',
      scope: ALL_SCOPES.join(' '),
    });
    const back = await consent(raw);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-42');
    expect(back.searchParams.get('code')).toMatch(/^code-/);
  });

  it('with the organization scopes: the member plus each administered organization, one token', async () => {
    const from = fake.requests.length;
    const code = await codeFor();
    const before = Date.now();
    const outcome = await connector.connect({ code, codeVerifier: 'u', redirectUri: REDIRECT });
    if (!outcome.ok) throw new Error(`not connected: ${JSON.stringify(outcome)}`);
    expect(outcome.identities.map((i) => [i.externalId, i.displayName])).toEqual([
      [`urn:li:person:${fake.member.sub}`, 'Fake Member'],
      ['urn:li:organization:2414183', 'Fake Company'],
      ['urn:li:organization:5550001', 'Fake Foundation'],
    ]);
    const tokens = outcome.identities[0]?.tokens;
    expect(tokens?.accessToken).toBe(fake.oauth.issued.at(-1)?.accessToken);
    expect(tokens?.refreshToken).toBeNull(); // refresh tokens only for approved apps
    expect(tokens?.scopes).toEqual(ALL_SCOPES);
    expect(tokens?.expiresAt?.getTime()).toBeGreaterThanOrEqual(
      before + LINKEDIN_ACCESS_EXPIRES_IN * 1000,
    );
    for (const identity of outcome.identities) expect(identity.tokens).toEqual(tokens);

    const calls = fake.requests.slice(from).filter((r) => r.path !== '/oauth/v2/authorization');
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/oauth/v2/accessToken',
      body: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
      },
    });
    expect(calls[1]).toMatchObject({
      path: '/v2/userinfo',
      headers: { authorization: `Bearer ${tokens?.accessToken}` },
    });
    expect(calls[2]).toMatchObject({
      path: '/rest/organizationAcls',
      query: { q: 'roleAssignee', role: 'ADMINISTRATOR', state: 'APPROVED' },
      headers: {
        authorization: `Bearer ${tokens?.accessToken}`,
        'linkedin-version': '202505',
        'x-restli-protocol-version': '2.0.0',
      },
    });
    expect(calls.slice(3).map((r) => r.path)).toEqual([
      '/rest/organizations/2414183',
      '/rest/organizations/5550001',
    ]);
    expect(calls[3]?.headers['linkedin-version']).toBe('202505');
  });

  it('without the organization scopes (LINKEDIN_ORGANIZATIONS=false): the member alone, no /rest call', async () => {
    const memberOnly = connectorFor(fake.baseUrl, { organizations: 'false' });
    const url = new URL(
      memberOnly.authorizationUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: 'c' }),
    );
    expect(url.searchParams.get('scope')).toBe(MEMBER_SCOPES.join(' '));
    const from = fake.requests.length;
    const outcome = await connect(memberOnly);
    expect(outcome).toMatchObject({
      ok: true,
      identities: [{ externalId: `urn:li:person:${fake.member.sub}`, displayName: 'Fake Member' }],
    });
    if (outcome.ok) {
      expect(outcome.identities).toHaveLength(1);
      expect(outcome.identities[0]?.tokens.scopes).toEqual(MEMBER_SCOPES);
    }
    expect(fake.requests.slice(from).some((r) => r.path.startsWith('/rest/'))).toBe(false);
  });

  it('an app without the Community Management API is refused consent for the organization scopes', async () => {
    const limited = await startFakeLinkedin({
      authorizedScopes: ['openid', 'profile', 'email', 'w_member_social'],
    });
    try {
      const back = await consent(
        connectorFor(limited.baseUrl).authorizationUrl({
          state: 'st-u',
          redirectUri: REDIRECT,
          codeChallenge: 'c',
        }),
      );
      expect(back.searchParams.get('error')).toBe('unauthorized_scope_error');
      expect(back.searchParams.get('error_description')).toContain('w_organization_social');
      expect(back.searchParams.get('state')).toBe('st-u');
      expect(back.searchParams.get('code')).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('a denied consent comes back with LinkedIn error and no code', async () => {
    fake.oauth.denyNextConsent('user_cancelled_authorize', 'The user cancelled the authorization');
    const back = await consent(
      connector.authorizationUrl({ state: 'st-d', redirectUri: REDIRECT, codeChallenge: 'c' }),
    );
    expect(back.searchParams.get('error')).toBe('user_cancelled_authorize');
    expect(back.searchParams.get('state')).toBe('st-d');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a used code or a scripted refusal fails with the token endpoint error, no secret', async () => {
    const code = await codeFor();
    expect((await connector.connect({ code, codeVerifier: 'u', redirectUri: REDIRECT })).ok).toBe(
      true,
    );
    const again = await connector.connect({ code, codeVerifier: 'u', redirectUri: REDIRECT });
    expect(again).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_request',
        message: expect.stringContaining('Unable to retrieve access token'),
      },
    });
    expectNoSecrets(again, [code]);

    fake.oauth.failNextExchange('invalid_client', 'Client authentication failed', 401);
    expect(await connect()).toMatchObject({ ok: false, error: { code: 'invalid_client' } });
  });

  it('API errors end the connect: revoked token, retired LinkedIn-Version, 5xx', async () => {
    fake.script({ error: LINKEDIN_ERRORS.revokedToken, on: 'userinfo' });
    const revoked = await connect();
    expect(revoked).toMatchObject({ ok: false, error: { code: 'REVOKED_ACCESS_TOKEN' } });
    expectNoSecrets(revoked, [String(fake.oauth.issued.at(-1)?.accessToken)]);

    const retired = await connect(connectorFor(fake.baseUrl, { apiVersion: '202401' }));
    expect(retired).toMatchObject({
      ok: false,
      error: {
        code: 'NONEXISTENT_VERSION',
        message: expect.stringContaining('Requested version 202401 is not active'),
      },
    });

    fake.script({ error: LINKEDIN_ERRORS.serverError, on: 'organization' });
    expect(await connect()).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR' },
    });
  });

  it('the fake rejects a /rest call without LinkedIn-Version, as LinkedIn does', async () => {
    const outcome = await connect(connectorFor(fake.baseUrl, { organizations: 'false' }));
    if (!outcome.ok) throw new Error('not connected');
    const token = outcome.identities[0]?.tokens.accessToken;
    const response = await request(`${fake.baseUrl}/rest/organizationAcls?q=roleAssignee`, {
      headers: { authorization: `Bearer ${token}`, 'x-restli-protocol-version': '2.0.0' },
    });
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toMatchObject({ status: 400, code: 'VERSION_MISSING' });
  });

  it('no refresh token -> refused, reconnect; an unreachable host -> network error', async () => {
    const noRefresh = await connector.refresh?.({
      externalId: 'urn:li:person:x',
      accessToken: 'AQV-secret-access',
      refreshToken: null,
    });
    expect(noRefresh).toEqual({
      kind: 'refused',
      reason: 'LinkedIn gave no refresh token: reconnect the account',
    });
    const unreachable = connectorFor(fake.baseUrl, { tokenBaseUrl: 'http://127.0.0.1:9' });
    const failed = await unreachable.refresh?.({
      externalId: 'urn:li:person:x',
      accessToken: 'AQV-secret-access',
      refreshToken: 'AQW-secret-refresh',
    });
    expect(failed).toMatchObject({ kind: 'failed' });
    expectNoSecrets(failed, ['AQV-secret-access', 'AQW-secret-refresh']);
    expect(await connect(unreachable)).toMatchObject({
      ok: false,
      error: { code: 'network_error' },
    });
  });
});

describe('linkedin OAuth with programmatic refresh tokens (approved apps)', () => {
  let approved: FakeLinkedin;
  let on: PlatformOAuth;
  beforeAll(async () => {
    approved = await startFakeLinkedin({ refreshTokens: true });
    on = connectorFor(approved.baseUrl);
  });
  afterAll(() => approved.close());

  it('refreshes with the refresh token; a revoked one is refused; a 500 is transient', async () => {
    const outcome = await connect(on);
    if (!outcome.ok) throw new Error(`not connected: ${JSON.stringify(outcome)}`);
    const first = outcome.identities[0]?.tokens;
    expect(first?.refreshToken).toMatch(/^refresh-/);
    const input = {
      externalId: outcome.identities[0]?.externalId ?? '',
      accessToken: first?.accessToken ?? '',
      refreshToken: first?.refreshToken ?? null,
    };

    const renewed = await on.refresh?.(input);
    if (renewed?.kind !== 'refreshed') throw new Error(`not renewed: ${JSON.stringify(renewed)}`);
    expect(renewed.tokens.accessToken).not.toBe(input.accessToken);
    expect(renewed.tokens.refreshToken).toBe(input.refreshToken);
    expect(renewed.tokens.scopes).toEqual(ALL_SCOPES);
    expect(approved.requests.at(-1)).toMatchObject({
      path: '/oauth/v2/accessToken',
      body: {
        grant_type: 'refresh_token',
        refresh_token: input.refreshToken,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
      },
    });

    approved.oauth.failNextRefresh('server_error', 'Scripted failure', 500);
    const down = await on.refresh?.(input);
    expect(down).toMatchObject({ kind: 'failed' });
    expectNoSecrets(down, [input.accessToken, String(input.refreshToken)]);

    approved.oauth.revoke(input.refreshToken ?? undefined);
    const refused = await on.refresh?.(input);
    expect(refused).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('invalid_grant'),
    });
    expectNoSecrets(refused, [input.accessToken, String(input.refreshToken)]);
  });
});
