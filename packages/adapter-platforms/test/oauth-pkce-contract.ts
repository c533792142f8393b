// What every connector with PKCE (TikTok, YouTube, X, Pinterest, Reddit, Google Business) must do, over real HTTP against its
// local fake: consent URL, code exchange with PKCE, identity, renewal, every refusal, and no
// token or code in any outcome. Each platform's test file runs it, then its own cases.
import { createHash, randomBytes } from 'node:crypto';
import type { PlatformOAuth } from '@social-publisher/domain';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import type { FakeOAuthProvider } from './helpers.ts';

export interface PkceFake {
  baseUrl: string;
  oauth: FakeOAuthProvider;
  close(): Promise<void>;
}

export interface PkceCase<F extends PkceFake> {
  platform: string;
  /** Env prefix of its settings (X for twitter). */
  prefix: string;
  start(): Promise<F>;
  clientId: string;
  clientSecret: string;
  /** The consent page's path on the auth host. */
  authorizePath: string;
  /** Every query parameter the consent URL must carry, besides redirect_uri/state/PKCE. */
  authorizeParams: Record<string, string>;
  externalId: string;
  displayName: string;
  /** Whether a refresh answers a new refresh token (the old one then spent). */
  rotates: boolean;
  /** The error code of a used code or a wrong verifier (X says invalid_request). */
  badCodeError: string;
  /** The setting of the token endpoint's host (default tokenBaseUrl; Reddit's is its auth host). */
  tokenHost?: 'tokenBaseUrl' | 'authBaseUrl';
  /** Further hosts of the platform, all pointed at the fake (Google Business's three APIs). */
  moreHosts?: readonly string[];
}

export const REDIRECT_BASE = 'https://api.example.com/oauth/callback/';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows a consent URL as a browser would, without following the redirect: its Location. */
export async function consent(url: string): Promise<URL> {
  const response = await request(url, { method: 'GET' });
  await response.body.dump();
  expect(response.statusCode).toBe(302);
  return new URL(String(response.headers.location));
}

export function connectorFor(
  platform: PkceCase<PkceFake>['platform'],
  settings: Record<string, string>,
): PlatformOAuth {
  const found = createPlatformRegistry({ settings: { [platform]: settings } }).oauth(platform);
  if (!found) throw new Error(`no connector for ${platform}`);
  return found;
}

/** Every token the fake issued and every code seen: none may appear in an outcome. */
export function expectNoSecrets(fake: PkceFake, outcome: unknown, extra: string[] = []) {
  const text = JSON.stringify(outcome);
  const secrets = fake.oauth.issued
    .flatMap((t) => [t.accessToken, t.refreshToken ?? ''])
    .concat(extra)
    .filter((s) => s.length > 0);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/**
 * Registers the shared cases and returns accessors for the platform's own ones: the running
 * fake, its connector, and `connected()` (a full consent + exchange, returning the tokens).
 */
export function describePkceConnector<F extends PkceFake>(c: PkceCase<F>) {
  let fake: F;
  let connector: PlatformOAuth;
  const redirectUri = `${REDIRECT_BASE}${c.platform}`;
  const settings = () => ({
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    authBaseUrl: fake.baseUrl,
    tokenBaseUrl: fake.baseUrl,
    apiBaseUrl: fake.baseUrl,
    ...Object.fromEntries((c.moreHosts ?? []).map((key) => [key, fake.baseUrl])),
  });

  beforeAll(async () => {
    fake = await c.start();
    connector = connectorFor(c.platform, settings());
  });
  afterAll(() => fake.close());

  async function codeFor(challenge: string, state = 'state-1') {
    const back = await consent(
      connector.authorizationUrl({ state, redirectUri, codeChallenge: challenge }),
    );
    return back.searchParams.get('code') ?? '';
  }

  async function connected() {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    const outcome = await connector.connect({ code, codeVerifier: verifier, redirectUri });
    if (!outcome.ok) throw new Error(`not connected: ${outcome.error.message}`);
    const identity = outcome.identities[0];
    if (!identity) throw new Error('no identity');
    return identity;
  }

  describe(`${c.platform} OAuth: shared contract`, () => {
    it('is configured, and names its variables (and refuses to connect) when it is not', async () => {
      expect(connector.missingSettings).toEqual([]);
      const bare = createPlatformRegistry({ settings: {} }).oauth(c.platform);
      const names = [`${c.prefix}_CLIENT_ID`, `${c.prefix}_CLIENT_SECRET`];
      expect(bare?.missingSettings).toEqual(names);
      const outcome = await bare?.connect({ code: 'c', codeVerifier: 'v', redirectUri });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'platform_not_configured' } });
      expect(outcome?.ok === false && outcome.error.message).toContain(names[0]);
      expect(
        await bare?.refresh?.({ externalId: 'x', accessToken: 'a', refreshToken: 'r' }),
      ).toMatchObject({ kind: 'failed' });
    });

    it('the consent URL: real path, client id, redirect_uri, state, scopes, S256 challenge', async () => {
      const { challenge } = pkcePair();
      const url = new URL(
        connector.authorizationUrl({ state: 'st-42', redirectUri, codeChallenge: challenge }),
      );
      expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}${c.authorizePath}`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        ...c.authorizeParams,
        redirect_uri: redirectUri,
        state: 'st-42',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      // The fake consents at once: 302 back to redirect_uri with a code and the state.
      const back = await consent(url.toString());
      expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
      expect(back.searchParams.get('state')).toBe('st-42');
      expect(back.searchParams.get('code')).toMatch(/^code-.{20,}/);
    });

    it('connects: code + PKCE verifier -> tokens, expiry, scopes and the identity; the code is single use', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await codeFor(challenge);
      const outcome = await connector.connect({ code, codeVerifier: verifier, redirectUri });
      expect(outcome).toMatchObject({
        ok: true,
        identities: [{ externalId: c.externalId, displayName: c.displayName }],
      });
      if (!outcome.ok) throw new Error('not connected');
      expect(outcome.identities).toHaveLength(1);
      const tokens = outcome.identities[0]?.tokens;
      const issued = fake.oauth.issued.at(-1);
      expect(tokens?.accessToken).toBe(issued?.accessToken);
      expect(tokens?.refreshToken).toBe(issued?.refreshToken);
      expect(tokens?.expiresAt?.getTime()).toBeGreaterThan(Date.now());
      expect(tokens?.scopes).toEqual(issued?.scopes);
      expect(tokens?.scopes.length).toBeGreaterThan(0);

      const again = await connector.connect({ code, codeVerifier: verifier, redirectUri });
      expect(again).toMatchObject({ ok: false, error: { code: c.badCodeError } });
      expectNoSecrets(fake, again, [code]);
    });

    it('a wrong PKCE verifier or another redirect_uri is refused; no code or token in the message', async () => {
      const { challenge } = pkcePair();
      const code = await codeFor(challenge);
      const wrong = await connector.connect({
        code,
        codeVerifier: pkcePair().verifier,
        redirectUri,
      });
      expect(wrong).toMatchObject({ ok: false, error: { code: c.badCodeError } });
      expectNoSecrets(fake, wrong, [code]);

      const other = pkcePair();
      const second = await codeFor(other.challenge);
      const elsewhere = await connector.connect({
        code: second,
        codeVerifier: other.verifier,
        redirectUri: `${redirectUri}-elsewhere`,
      });
      expect(elsewhere).toMatchObject({ ok: false, error: { code: c.badCodeError } });
    });

    it('a denied consent comes back as error=access_denied with the state; a scripted refusal is reported', async () => {
      fake.oauth.denyNextConsent();
      const back = await consent(
        connector.authorizationUrl({
          state: 'st-denied',
          redirectUri,
          codeChallenge: pkcePair().challenge,
        }),
      );
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe('st-denied');
      expect(back.searchParams.get('code')).toBeNull();

      const { verifier, challenge } = pkcePair();
      const code = await codeFor(challenge);
      fake.oauth.failNextExchange('invalid_request', 'Scripted refusal');
      const refused = await connector.connect({ code, codeVerifier: verifier, redirectUri });
      expect(refused).toMatchObject({
        ok: false,
        error: { code: 'invalid_request', message: expect.stringContaining('Scripted refusal') },
      });
      expectNoSecrets(fake, refused, [code]);
    });

    it('renews tokens (rotated or kept), then a revoked refresh token is refused', async () => {
      const first = (await connected()).tokens;
      if (!first.refreshToken || !connector.refresh) throw new Error('no refresh');
      const input = {
        externalId: c.externalId,
        accessToken: first.accessToken,
        refreshToken: first.refreshToken,
      };
      const renewed = await connector.refresh(input);
      if (renewed.kind !== 'refreshed') throw new Error(`not renewed: ${renewed.reason}`);
      expect(renewed.tokens.accessToken).toBe(fake.oauth.issued.at(-1)?.accessToken);
      expect(renewed.tokens.accessToken).not.toBe(first.accessToken);
      expect(renewed.tokens.expiresAt?.getTime()).toBeGreaterThan(Date.now());
      expect(renewed.tokens.scopes).toEqual(first.scopes);
      if (c.rotates) {
        expect(renewed.tokens.refreshToken).toMatch(/^refresh-/);
        expect(renewed.tokens.refreshToken).not.toBe(first.refreshToken);
        // The old one is spent.
        const spent = await connector.refresh(input);
        expect(spent.kind).toBe('refused');
        expectNoSecrets(fake, spent);
      } else {
        expect(renewed.tokens.refreshToken).toBeNull(); // the caller keeps the stored one
      }

      const latest = renewed.tokens.refreshToken ?? first.refreshToken;
      fake.oauth.revoke(latest);
      const refused = await connector.refresh({ ...input, refreshToken: latest });
      expect(refused.kind).toBe('refused');
      expectNoSecrets(fake, refused);
      expect(await connector.refresh({ ...input, refreshToken: null })).toMatchObject({
        kind: 'refused',
      });
    });

    it('a token endpoint 500 is a transient failure, and the refresh token still works after it', async () => {
      const { tokens } = await connected();
      if (!tokens.refreshToken || !connector.refresh) throw new Error('no refresh');
      const input = { externalId: c.externalId, ...tokens };
      fake.oauth.failNextRefresh('server_error', 'Scripted outage', 500);
      const failed = await connector.refresh(input);
      expect(failed).toMatchObject({
        kind: 'failed',
        reason: expect.stringContaining('server_error'),
      });
      expectNoSecrets(fake, failed);
      expect((await connector.refresh(input)).kind).toBe('refreshed');
    });

    it('an unreachable token endpoint fails transiently, never as a refusal, never echoing a token', async () => {
      const down = connectorFor(c.platform, {
        ...settings(),
        [c.tokenHost ?? 'tokenBaseUrl']: 'http://127.0.0.1:9',
      });
      const outcome = await down.refresh?.({
        externalId: c.externalId,
        accessToken: 'access-secret-value',
        refreshToken: 'refresh-secret-value',
      });
      expect(outcome?.kind).toBe('failed');
      expect(JSON.stringify(outcome)).not.toContain('secret-value');
      const connect = await down.connect({
        code: 'code-secret-value',
        codeVerifier: 'v',
        redirectUri,
      });
      expect(connect).toMatchObject({ ok: false, error: { code: 'network_error' } });
      expect(JSON.stringify(connect)).not.toContain('secret-value');
    });
  });

  return {
    fake: () => fake,
    connector: () => connector,
    settings,
    redirectUri,
    codeFor,
    connected,
  };
}
