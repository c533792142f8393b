import { describe, expect, it } from 'vitest';
import {
  CONNECT_STATE_TTL_MS,
  type CoreDeps,
  completeConnect,
  hashState,
  listSocialAccounts,
  openConsent,
  type StartConnectInput,
  secretBinding,
  startConnect,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedOAuth,
  ScriptedPlatformRegistry,
  seedUser,
  seedWorkspace,
} from '../src/testing/index.ts';
import { errorOf, unwrap } from './support.ts';

async function setup(options: { returnOrigins?: string[] } = {}) {
  const tiktok = new ScriptedOAuth('tiktok');
  const linkedin = new ScriptedOAuth('linkedin');
  const platforms = new ScriptedPlatformRegistry().withOAuth(tiktok).withOAuth(linkedin);
  const deps = createTestDeps({
    platforms,
    settings: {
      publicBaseUrl: 'https://api.example.com/',
      connectReturnOrigins: options.returnOrigins ?? ['https://app.example.com'],
    },
  });
  const alice = await seedUser(deps, 'alice@example.com');
  return { deps, alice, tiktok, linkedin };
}

/** A flow started and opened in one browser: its state, the browser's nonce, the platform URL. */
async function begin(
  deps: CoreDeps,
  ctx: Parameters<typeof startConnect>[1],
  input: StartConnectInput,
) {
  const started = unwrap(await startConnect(deps, ctx, input));
  const opening = await openConsent(deps, input.platform as string, started.state, undefined);
  if (!opening.ok) throw new Error(`consent not opened: ${opening.message}`);
  return { ...started, nonce: opening.browserNonce, platformUrl: opening.platformUrl };
}

/** The state, verifier challenge and redirect of a consent URL made by ScriptedOAuth. */
const consent = (url: string) => {
  const parsed = new URL(url);
  return {
    state: parsed.searchParams.get('state') ?? '',
    redirectUri: parsed.searchParams.get('redirect_uri'),
    challenge: parsed.searchParams.get('code_challenge') ?? '',
  };
};

describe('startConnect', () => {
  it('answers our consent URL with a fresh state, stored only hashed, for 10 minutes', async () => {
    const { deps, alice } = await setup();
    const started = unwrap(await startConnect(deps, alice.ctx, { platform: 'tiktok' }));
    const ours = new URL(started.authorizationUrl);
    expect(`${ours.origin}${ours.pathname}`).toBe('https://api.example.com/oauth/authorize/tiktok');
    expect(ours.searchParams.get('state')).toBe(started.state);
    const opening = await openConsent(deps, 'tiktok', started.state, undefined);
    if (!opening.ok) throw new Error(opening.message);
    const { state, redirectUri, challenge } = consent(opening.platformUrl);
    expect(state).toBe(started.state);
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(redirectUri).toBe('https://api.example.com/oauth/callback/tiktok');
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.expiresAt.getTime() - deps.clock.now().getTime()).toBe(CONNECT_STATE_TTL_MS);
    const stored = [...deps.store.tables.oauthStates.values()];
    expect(stored).toHaveLength(1);
    expect(stored[0]?.stateHash).toBe(hashState(state));
    expect(JSON.stringify(stored)).not.toContain(state);
    expect(stored[0]).toMatchObject({ accountId: alice.ctx.accountId, platform: 'tiktok' });
  });

  it('refuses an unknown platform, a platform without OAuth and an unconfigured one', async () => {
    const { deps, alice, tiktok } = await setup();
    expect(errorOf(await startConnect(deps, alice.ctx, { platform: 'myspace' }))).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'platform' }],
    });
    expect(errorOf(await startConnect(deps, alice.ctx, { platform: 'youtube' }))).toMatchObject({
      code: 'platform_not_configured',
    });
    tiktok.missingSettings = ['TIKTOK_CLIENT_ID', 'TIKTOK_CLIENT_SECRET'];
    expect(errorOf(await startConnect(deps, alice.ctx, { platform: 'tiktok' }))).toEqual({
      code: 'platform_not_configured',
      message: 'tiktok accounts cannot be connected: set TIKTOK_CLIENT_ID and TIKTOK_CLIENT_SECRET',
    });
    expect(deps.store.tables.oauthStates.size).toBe(0);
  });

  it('takes return_url only under an allowed origin: never an open redirect', async () => {
    const { deps, alice } = await setup();
    const ok = await startConnect(deps, alice.ctx, {
      platform: 'tiktok',
      return_url: 'https://app.example.com/connected?x=1',
    });
    expect(ok.ok).toBe(true);
    for (const returnUrl of [
      'https://evil.example.com/',
      'https://app.example.com.evil.example/',
      'http://app.example.com/',
      'https://user:pw@app.example.com/',
      '//evil.example.com',
      'javascript:alert(1)',
      42,
    ]) {
      const error = errorOf(
        await startConnect(deps, alice.ctx, { platform: 'tiktok', return_url: returnUrl }),
      );
      expect(error, String(returnUrl)).toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'return_url' }],
      });
    }
    const none = await setup({ returnOrigins: [] });
    expect(
      errorOf(
        await startConnect(none.deps, none.alice.ctx, {
          platform: 'tiktok',
          return_url: 'https://app.example.com/',
        }),
      ),
    ).toMatchObject({
      details: [{ field: 'return_url', message: expect.stringMatching(/empty/) }],
    });
  });
});

describe('openConsent', () => {
  it('binds the first browser, lets it open the link again, refuses any other', async () => {
    const { deps, alice } = await setup();
    const started = unwrap(await startConnect(deps, alice.ctx, { platform: 'tiktok' }));
    const first = await openConsent(deps, 'tiktok', started.state, undefined);
    if (!first.ok) throw new Error(first.message);
    expect(first.browserNonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.expiresAt).toEqual(started.expiresAt);
    const stored = [...deps.store.tables.oauthStates.values()][0];
    expect(stored?.browserHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(first.browserNonce);
    const again = await openConsent(deps, 'tiktok', started.state, first.browserNonce);
    expect(again).toMatchObject({ ok: true, browserNonce: first.browserNonce });
    for (const other of [undefined, 'another-browser']) {
      expect(await openConsent(deps, 'tiktok', started.state, other)).toMatchObject({
        ok: false,
        code: 'browser_mismatch',
        returnUrl: null,
      });
    }
    // Opening does not use the state up.
    expect(deps.store.tables.oauthStates.size).toBe(1);
  });

  it('refuses a missing, unknown, foreign or expired state; expired goes back to return_url', async () => {
    const { deps, alice } = await setup();
    expect(await openConsent(deps, 'tiktok', undefined, undefined)).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    expect(await openConsent(deps, 'tiktok', 'forged', undefined)).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    const started = unwrap(
      await startConnect(deps, alice.ctx, {
        platform: 'tiktok',
        return_url: 'https://app.example.com/back',
      }),
    );
    expect(await openConsent(deps, 'linkedin', started.state, undefined)).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: 'this state was made for tiktok',
    });
    deps.clock.advance(CONNECT_STATE_TTL_MS);
    expect(await openConsent(deps, 'tiktok', started.state, undefined)).toMatchObject({
      ok: false,
      code: 'state_expired',
      returnUrl: 'https://app.example.com/back',
    });
  });
});

describe('completeConnect', () => {
  it('exchanges the code with the stored verifier and creates the connection on the account', async () => {
    const { deps, alice, tiktok } = await setup();
    const started = await begin(deps, alice.ctx, {
      platform: 'tiktok',
      return_url: 'https://app.example.com/done',
    });
    const result = await completeConnect(
      deps,
      'tiktok',
      { code: 'c0de', state: started.state },
      started.nonce,
    );
    expect(result).toMatchObject({ ok: true, returnUrl: 'https://app.example.com/done' });
    if (!result.ok) throw new Error('not connected');
    const [exchange] = tiktok.exchanges;
    expect(exchange?.code).toBe('c0de');
    expect(exchange?.redirectUri).toBe('https://api.example.com/oauth/callback/tiktok');
    // The verifier matches the challenge sent in the consent URL (PKCE S256).
    const { createHash } = await import('node:crypto');
    expect(
      createHash('sha256')
        .update(exchange?.codeVerifier ?? '')
        .digest('base64url'),
    ).toBe(consent(started.platformUrl).challenge);
    const [connection] = result.connections;
    expect(connection).toMatchObject({
      accountId: alice.ctx.accountId,
      platform: 'tiktok',
      externalId: 'tiktok-id',
      displayName: '@tiktok',
      status: 'active',
      sandbox: false,
      scopes: ['publish'],
    });
    expect(
      deps.cipher.decrypt(
        connection?.accessTokenCiphertext ?? '',
        secretBinding.accessToken(connection?.id ?? ''),
      ),
    ).toBe('access-tiktok');
    expect(await listSocialAccounts(deps, alice.ctx)).toHaveLength(1);
  });

  it('a state is good once: a replay, an unknown or a missing state creates nothing', async () => {
    const { deps, alice } = await setup();
    const started = await begin(deps, alice.ctx, { platform: 'tiktok' });
    expect(
      (await completeConnect(deps, 'tiktok', { code: 'a', state: started.state }, started.nonce))
        .ok,
    ).toBe(true);
    const replay = await completeConnect(
      deps,
      'tiktok',
      { code: 'a', state: started.state },
      started.nonce,
    );
    expect(replay).toMatchObject({ ok: false, code: 'invalid_state', returnUrl: null });
    const forged = await completeConnect(deps, 'tiktok', { code: 'a', state: 'forged' }, undefined);
    expect(forged).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(await completeConnect(deps, 'tiktok', { code: 'a' }, undefined)).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    expect(await listSocialAccounts(deps, alice.ctx)).toHaveLength(1);
  });

  it("a code brought back by another browser (no cookie, or another flow's) is refused and creates nothing", async () => {
    const { deps, alice, tiktok } = await setup();
    const mallory = await seedUser(deps, 'mallory@example.com');
    // Mallory's flow, opened in her browser; the victim's code arrives with her state.
    const hers = await begin(deps, mallory.ctx, {
      platform: 'tiktok',
      return_url: 'https://app.example.com/m',
    });
    const mine = await begin(deps, alice.ctx, { platform: 'tiktok' });
    for (const nonce of [undefined, '', mine.nonce, `${hers.nonce}x`]) {
      const fresh = await begin(deps, mallory.ctx, { platform: 'tiktok' });
      expect(
        await completeConnect(deps, 'tiktok', { code: 'victim', state: fresh.state }, nonce),
        String(nonce),
      ).toMatchObject({ ok: false, code: 'browser_mismatch', returnUrl: null });
    }
    expect(tiktok.exchanges).toEqual([]);
    expect(await listSocialAccounts(deps, mallory.ctx)).toEqual([]);
    // A flow whose consent was never opened through our link has no browser at all.
    const unopened = unwrap(await startConnect(deps, alice.ctx, { platform: 'tiktok' }));
    expect(
      await completeConnect(deps, 'tiktok', { code: 'c', state: unopened.state }, 'anything'),
    ).toMatchObject({ ok: false, code: 'browser_mismatch' });
    // Its own browser still completes.
    expect(
      (await completeConnect(deps, 'tiktok', { code: 'c', state: hers.state }, hers.nonce)).ok,
    ).toBe(true);
  });

  it('refuses an expired state and a state of another platform (consumed either way)', async () => {
    const { deps, alice, tiktok } = await setup();
    const late = await begin(deps, alice.ctx, { platform: 'tiktok' });
    deps.clock.advance(CONNECT_STATE_TTL_MS);
    expect(
      await completeConnect(deps, 'tiktok', { code: 'a', state: late.state }, late.nonce),
    ).toMatchObject({
      ok: false,
      code: 'state_expired',
    });
    const foreign = await begin(deps, alice.ctx, { platform: 'tiktok' });
    expect(
      await completeConnect(deps, 'linkedin', { code: 'a', state: foreign.state }, foreign.nonce),
    ).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: 'this state was made for tiktok',
    });
    expect(
      await completeConnect(deps, 'tiktok', { code: 'a', state: foreign.state }, foreign.nonce),
    ).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(tiktok.exchanges).toEqual([]);
    expect(await listSocialAccounts(deps, alice.ctx)).toEqual([]);
  });

  it('a denied consent or a failed exchange creates nothing and says why', async () => {
    const { deps, alice, tiktok } = await setup();
    const denied = await begin(deps, alice.ctx, {
      platform: 'tiktok',
      return_url: 'https://app.example.com/x',
    });
    expect(
      await completeConnect(
        deps,
        'tiktok',
        {
          state: denied.state,
          error: 'access_denied',
          error_description: 'The user denied the request',
        },
        denied.nonce,
      ),
    ).toEqual({
      ok: false,
      platform: 'tiktok',
      code: 'access_denied',
      message: 'access was not granted on the consent page: The user denied the request',
      returnUrl: 'https://app.example.com/x',
    });
    tiktok.connectWith(() => ({
      ok: false,
      error: { code: 'invalid_grant', message: 'the code expired' },
    }));
    const failed = await begin(deps, alice.ctx, { platform: 'tiktok' });
    expect(
      await completeConnect(deps, 'tiktok', { code: 'old', state: failed.state }, failed.nonce),
    ).toMatchObject({ ok: false, code: 'invalid_grant', message: 'the code expired' });
    tiktok.connectWith(() => ({ ok: true, identities: [] }));
    const empty = await begin(deps, alice.ctx, { platform: 'tiktok' });
    expect(
      await completeConnect(deps, 'tiktok', { code: 'c', state: empty.state }, empty.nonce),
    ).toMatchObject({
      ok: false,
      code: 'nothing_granted',
    });
    const noCode = await begin(deps, alice.ctx, { platform: 'tiktok' });
    expect(
      await completeConnect(deps, 'tiktok', { state: noCode.state }, noCode.nonce),
    ).toMatchObject({
      ok: false,
      code: 'invalid_request',
    });
    expect(await listSocialAccounts(deps, alice.ctx)).toEqual([]);
  });

  it('a platform unconfigured since the flow started fails cleanly', async () => {
    const { deps, alice, tiktok } = await setup();
    const started = await begin(deps, alice.ctx, { platform: 'tiktok' });
    tiktok.missingSettings = ['TIKTOK_CLIENT_SECRET'];
    expect(
      await completeConnect(deps, 'tiktok', { code: 'c', state: started.state }, started.nonce),
    ).toMatchObject({ ok: false, code: 'platform_not_configured' });
  });

  it('a reconnect renews the tokens of the same connection (same id, active again)', async () => {
    const { deps, alice } = await setup();
    const one = await begin(deps, alice.ctx, { platform: 'tiktok' });
    const first = await completeConnect(deps, 'tiktok', { code: 'a', state: one.state }, one.nonce);
    if (!first.ok) throw new Error('not connected');
    const id = first.connections[0]?.id ?? '';
    await deps.repos.socialAccounts.markExpired(id, deps.clock.now());
    const two = await begin(deps, alice.ctx, { platform: 'tiktok' });
    const again = await completeConnect(deps, 'tiktok', { code: 'b', state: two.state }, two.nonce);
    if (!again.ok) throw new Error('not reconnected');
    expect(again.connections.map((c) => c.id)).toEqual([id]);
    const listed = await listSocialAccounts(deps, alice.ctx);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.status).toBe('active');
  });

  it('one consent may yield several connections, made on the account that asked', async () => {
    const { deps, alice, linkedin } = await setup();
    const team = await seedWorkspace(deps, alice, 'Team');
    linkedin.connectWith(() => ({
      ok: true,
      identities: ['urn:li:person:1', 'urn:li:organization:2'].map((externalId) => ({
        externalId,
        displayName: externalId,
        tokens: { accessToken: 'shared', refreshToken: null, expiresAt: null, scopes: [] },
      })),
    }));
    const started = await begin(deps, team.ctx, { platform: 'linkedin' });
    const result = await completeConnect(
      deps,
      'linkedin',
      { code: 'c', state: started.state },
      started.nonce,
    );
    if (!result.ok) throw new Error('not connected');
    expect(result.connections.map((c) => c.externalId)).toEqual([
      'urn:li:person:1',
      'urn:li:organization:2',
    ]);
    expect(result.connections.every((c) => c.accountId === team.ctx.accountId)).toBe(true);
    expect(await listSocialAccounts(deps, alice.ctx)).toEqual([]);
  });
});
