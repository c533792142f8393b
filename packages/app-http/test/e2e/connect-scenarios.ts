/**
 * Connecting accounts end to end (docs/connect.md): a client with only an API key asks for the
 * consent URL, the browser follows it (our route sets the flow's cookie and redirects to the
 * fake platform, which consents at once and redirects to our callback), the callback (with
 * the cookie) creates the connection and sends the browser back to the client app; then a
 * post goes through the new connection. Also: denied consent, replayed and forged states, a
 * code brought back by another browser, open-redirect attempts, a reconnect, and no token in
 * any response.
 */
import { expect, it } from 'vitest';
import { type IssuedTokens, PINTEREST_BOARD_ID } from '../../../testkit/src/index.ts';
import type { PostJson } from '../../src/schemas/posts.ts';
import { PUBLIC_BASE_URL, RETURN_ORIGIN, type System, waitFor } from './system.ts';

interface Connection {
  id: string;
  platform: string;
  external_id: string;
  display_name: string | null;
  status: string;
  scopes: string[];
  sandbox: boolean;
  token_expires_at: string | null;
}

/** Every state, cookie nonce and code of the scenarios: none may appear in a log line. */
const credentials: string[] = [];

/** What a browser does with a URL: one request (with its cookie), redirects not followed. */
async function browse(url: string, cookie?: string): Promise<Response> {
  return fetch(url, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });
}

/** A URL under PUBLIC_BASE_URL (how browsers would reach the API) on the API's real port. */
function onApi(system: System, url: string): string {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(PUBLIC_BASE_URL);
  return `${system.api.baseUrl}${parsed.pathname}${parsed.search}`;
}

/**
 * authorization_url in a browser: our route answers the flow's cookie (name=value, what the
 * browser sends back) and a 302 to the platform's consent page.
 */
async function openConsent(system: System, authorizationUrl: string) {
  const opened = await browse(onApi(system, authorizationUrl));
  expect(opened.status).toBe(302);
  const setCookie = opened.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/HttpOnly/);
  credentials.push(setCookie.split(';')[0]?.split('=')[1] ?? '');
  return {
    cookie: setCookie.split(';')[0] ?? '',
    platformUrl: opened.headers.get('location') ?? '',
  };
}

/**
 * The whole browser round: our consent link -> the fake's consent page -> its 302 to
 * PUBLIC_BASE_URL/oauth/callback/... -> the callback, carrying the flow's cookie.
 */
export async function throughConsent(system: System, authorizationUrl: string): Promise<Response> {
  const { cookie, platformUrl } = await openConsent(system, authorizationUrl);
  const consent = await browse(platformUrl);
  expect(consent.status).toBe(302);
  const back = consent.headers.get('location') ?? '';
  credentials.push(new URL(back).searchParams.get('code') ?? '');
  return browse(onApi(system, back), cookie);
}

export async function startConnect(system: System, platform: string, returnUrl?: string) {
  const started = await system.api.call<{
    data: { authorization_url: string; state: string; expires_at: string };
  }>('POST', '/social-accounts/connect', {
    platform,
    ...(returnUrl ? { return_url: returnUrl } : {}),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  credentials.push(started.body.data.state);
  return started.body.data;
}

/** Platforms with a fake OAuth server in the e2e system, and what their consent yields. */
const CONNECTABLE = [
  { platform: 'tiktok', externalIds: ['fake-open-id'], pkce: true },
  { platform: 'instagram', externalIds: ['17841400000000001'], pkce: true },
  { platform: 'youtube', externalIds: ['UC-fake-channel'], pkce: true },
  { platform: 'twitter', externalIds: ['1460000000000000001'], pkce: true },
  // One connection per Page granted.
  { platform: 'facebook', externalIds: ['102000000000001'], pkce: true },
  { platform: 'threads', externalIds: ['25010000000000001'], pkce: true },
  // The member, and each organization it administers.
  {
    platform: 'linkedin',
    externalIds: ['urn:li:person:fAkEmEmBeR1', 'urn:li:organization:2414183'],
    pkce: false,
  },
  // Pins need a board; Pinterest ignores the PKCE parameters it does not document.
  {
    platform: 'pinterest',
    externalIds: ['1111111111111111111'],
    pkce: true,
    options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
  },
] as const;

export function defineConnectScenarios(get: () => System): void {
  for (const connectable of CONNECTABLE) {
    const { platform, externalIds, pkce } = connectable;
    const options = 'options' in connectable ? connectable.options : undefined;
    it(`${platform}: connect through the consent page, then publish through the new connection`, async () => {
      const system = get();
      const started = await startConnect(system, platform, `${RETURN_ORIGIN}/connected?from=e2e`);
      expect(Date.parse(started.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
      const ours = new URL(started.authorization_url);
      expect(ours.pathname).toBe(`/oauth/authorize/${platform}`);
      const consentUrl = new URL(
        (await openConsent(system, started.authorization_url)).platformUrl,
      );
      expect(consentUrl.searchParams.get('state')).toBe(started.state);
      expect(consentUrl.searchParams.get('redirect_uri')).toBe(
        `${PUBLIC_BASE_URL}/oauth/callback/${platform}`,
      );
      expect(consentUrl.searchParams.get('code_challenge_method')).toBe(pkce ? 'S256' : null);

      // Another browser opening the same link is refused (the first one owns the flow).
      expect((await browse(onApi(system, started.authorization_url))).status).toBe(400);
      const again = await startConnect(system, platform, `${RETURN_ORIGIN}/connected?from=e2e`);
      const callback = await throughConsent(system, again.authorization_url);
      expect(callback.status).toBe(302);
      const back = new URL(callback.headers.get('location') ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(`${RETURN_ORIGIN}/connected`);
      expect(back.searchParams.get('from')).toBe('e2e');
      expect(back.searchParams.get('platform')).toBe(platform);
      const ids = (back.searchParams.get('social_account_ids') ?? '').split(',');
      expect(ids).toHaveLength(externalIds.length);

      const listed = await system.api.call<{ data: Connection[] }>('GET', '/social-accounts');
      const made = ids.map((id) => listed.body.data.find((c) => c.id === id));
      expect(made.map((c) => c?.external_id)).toEqual([...externalIds]);
      for (const connection of made) {
        expect(connection).toMatchObject({ platform, status: 'active', sandbox: false });
        expect(connection?.scopes.length).toBeGreaterThan(0);
      }
      expect(JSON.stringify(listed.body)).not.toMatch(/access-|refresh-|EAA/);

      const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
        content: `Hello from a connected ${platform} account`,
        social_account_ids: [ids[0]],
        media_urls: [system.media.url(`connect-${platform}.mp4`, 64 * 1024)],
        ...(options ? { platform_options: options } : {}),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const done = await waitFor('the post to end', async () => {
        const post = await system.api.call<{ data: PostJson }>(
          'GET',
          `/posts/${created.body.data.id}`,
        );
        return ['published', 'failed', 'partial'].includes(post.body.data.status)
          ? post.body.data
          : undefined;
      });
      const target = done.post_targets[0];
      expect(done.status).toBe('published');
      expect(target?.platform_post_id).toBeTruthy();
    });
  }

  it('a reconnect keeps the connection id; without return_url the callback answers a page', async () => {
    const system = get();
    const first = await throughConsent(
      system,
      (await startConnect(system, 'twitter')).authorization_url,
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/text\/html/);
    const page = await first.text();
    expect(page).toContain('Account connected');
    expect(page).toContain('@fake_account');
    const again = await throughConsent(
      system,
      (await startConnect(system, 'twitter')).authorization_url,
    );
    expect(again.status).toBe(200);
    const listed = await system.api.call<{ data: Connection[] }>('GET', '/social-accounts');
    const xs = listed.body.data.filter(
      (c) => c.platform === 'twitter' && c.external_id === '1460000000000000001',
    );
    expect(xs).toHaveLength(1);
  });

  it('a denied consent creates nothing and says why, to the return_url', async () => {
    const system = get();
    const before = (await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')).body
      .data.length;
    system.youtube.oauth.denyNextConsent();
    const started = await startConnect(system, 'youtube', `${RETURN_ORIGIN}/back`);
    const callback = await throughConsent(system, started.authorization_url);
    expect(callback.status).toBe(302);
    const back = new URL(callback.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toMatch(/not granted/);
    expect(back.searchParams.get('social_account_ids')).toBeNull();
    const after = (await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')).body
      .data.length;
    expect(after).toBe(before);
  });

  it('replayed, forged and foreign states are refused; nothing is created', async () => {
    const system = get();
    const started = await startConnect(system, 'tiktok');
    const { cookie, platformUrl } = await openConsent(system, started.authorization_url);
    const consent = await browse(platformUrl);
    const callback = onApi(system, consent.headers.get('location') ?? '');
    expect((await browse(callback, cookie)).status).toBe(200);
    const replay = await browse(callback, cookie);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/unknown or already used state/);
    const forged = await browse(
      `${system.api.baseUrl}/oauth/callback/tiktok?code=x&state=${'A'.repeat(43)}`,
    );
    expect(forged.status).toBe(400);
    const foreign = await startConnect(system, 'tiktok');
    const wrong = await browse(
      `${system.api.baseUrl}/oauth/callback/youtube?code=x&state=${foreign.state}`,
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(/made for tiktok/);
    const noState = await browse(`${system.api.baseUrl}/oauth/callback/tiktok?code=x`);
    expect(noState.status).toBe(400);
  });

  for (const platform of ['instagram', 'facebook', 'threads', 'linkedin', 'pinterest'] as const) {
    it(`${platform}: a code from one consent, brought back with another account's state by a browser without its cookie, connects nothing`, async () => {
      const system = get();
      const before = (await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')).body
        .data.length;
      // The victim consents; the platform sends their browser back with a code.
      const victims = await startConnect(system, platform);
      const opened = await openConsent(system, victims.authorization_url);
      const consent = new URL((await browse(opened.platformUrl)).headers.get('location') ?? '');
      const code = consent.searchParams.get('code') ?? '';
      expect(code).not.toBe('');
      // The attacker's flow, whose link the attacker opened; the code arrives with its state
      // from another browser: refused before any exchange, the page says why.
      const attackers = await startConnect(system, platform, `${RETURN_ORIGIN}/attacker`);
      await openConsent(system, attackers.authorization_url);
      const exchangesBefore = system[platform].oauth.issued.length;
      const injected = await browse(
        `${system.api.baseUrl}/oauth/callback/${platform}?code=${encodeURIComponent(code)}&state=${attackers.state}`,
        opened.cookie,
      );
      expect(injected.status).toBe(400);
      expect(await injected.text()).toMatch(/browser_mismatch/);
      expect(system[platform].oauth.issued.length).toBe(exchangesBefore);
      if (platform !== 'linkedin') {
        // With its own flow's cookie the attacker passes the browser check, but PKCE binds the
        // code to the victim's verifier: the exchange is refused (LinkedIn has no PKCE for web
        // apps; there the cookie is the defence).
        const own = await startConnect(system, platform, `${RETURN_ORIGIN}/attacker`);
        const mine = await openConsent(system, own.authorization_url);
        const redeemed = await browse(
          `${system.api.baseUrl}/oauth/callback/${platform}?code=${encodeURIComponent(code)}&state=${own.state}`,
          mine.cookie,
        );
        expect(redeemed.status).toBe(302);
        expect(
          new URL(redeemed.headers.get('location') ?? '').searchParams.get('error'),
        ).toBeTruthy();
      }
      const after = (await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')).body
        .data.length;
      expect(after).toBe(before);
    });
  }

  it('return_url outside CONNECT_RETURN_ORIGINS is refused before any consent: no open redirect', async () => {
    const system = get();
    for (const returnUrl of [
      'https://evil.example.com/steal',
      `${RETURN_ORIGIN}.evil.example/x`,
      'javascript:alert(1)',
    ]) {
      const refused = await system.api.call<{ error: { code: string; details: unknown[] } }>(
        'POST',
        '/social-accounts/connect',
        { platform: 'tiktok', return_url: returnUrl },
      );
      expect(refused.status, returnUrl).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }
    const unknown = await system.api.call('POST', '/social-accounts/connect', {
      platform: 'myspace',
    });
    expect(unknown.status).toBe(400);
  });

  it('the worker renews tokens ahead; a refused renewal expires the connection and sends social_account.expired', async () => {
    const system = get();
    const hook = await system.api.call<{ data: { id: string; secret: string } }>(
      'POST',
      '/webhooks',
      { url: system.receiver.url('/expired'), events: ['social_account.expired'] },
    );
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    system.receiver.register('/expired', hook.body.data.secret);
    const started = await startConnect(system, 'tiktok', `${RETURN_ORIGIN}/t`);
    const back = new URL(
      (await throughConsent(system, started.authorization_url)).headers.get('location') ?? '',
    );
    const id = back.searchParams.get('social_account_ids') ?? '';
    const before = (
      await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')
    ).body.data.find((c) => c.id === id);

    const grants = () =>
      system.tiktok.requests.filter(
        (r) =>
          r.path === '/v2/oauth/token/' &&
          (r.body as { grant_type?: string } | undefined)?.grant_type === 'refresh_token',
      ).length;
    const refreshesBefore = grants();
    await system.worker.refreshTokensNow();
    expect(grants()).toBeGreaterThan(refreshesBefore);
    const renewed = (
      await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')
    ).body.data.find((c) => c.id === id);
    expect(renewed?.status).toBe('active');
    expect(renewed?.token_expires_at).not.toBe(before?.token_expires_at);

    // The platform refuses the next renewal: the connection is expired and the hook told.
    system.tiktok.script({ tokenError: 'invalid_grant', times: 20 });
    await system.worker.refreshTokensNow();
    const expired = (
      await system.api.call<{ data: Connection[] }>('GET', '/social-accounts')
    ).body.data.find((c) => c.id === id);
    expect(expired?.status).toBe('expired');
    const arrival = await waitFor('the social_account.expired webhook', () =>
      system.receiver.arrivals.find(
        (a) => a.path === '/expired' && a.payload.social_account_id === id,
      ),
    );
    expect(arrival.event).toBe('social_account.expired');
    expect(arrival.payload).toMatchObject({
      event: 'social_account.expired',
      platform: 'tiktok',
      social_account_id: id,
      data: { reason: expect.stringContaining('invalid_grant') },
    });
    // A post to the expired connection fails clearly instead of calling the platform.
    const created = await system.api.call<{ data: PostJson; error?: unknown }>('POST', '/posts', {
      content: 'after expiry',
      social_account_ids: [id],
      media_urls: [system.media.url('after-expiry.mp4', 1024)],
    });
    expect(created.status).toBe(400);
  });

  it('no OAuth state, code or cookie of the flows above appears in a log line', () => {
    const system = get();
    const seen = credentials.filter((value) => value.length >= 16);
    expect(seen.length).toBeGreaterThan(20);
    const logged = JSON.stringify(system.logs);
    expect(logged).toContain('/oauth/callback/');
    for (const value of seen) expect(logged).not.toContain(value);
  });

  it('no access or refresh token ever appears in a log line', () => {
    const system = get();
    const fakes = [
      system.tiktok,
      system.youtube,
      system.x,
      system.instagram,
      system.facebook,
      system.linkedin,
      system.pinterest,
      system.threads,
    ];
    const issued = fakes
      .map((fake) => fake.oauth)
      .flatMap((o) =>
        o.issued
          .flatMap((t: IssuedTokens) => [t.accessToken, t.refreshToken ?? ''])
          .filter((t: string) => t !== ''),
      );
    expect(issued.length).toBeGreaterThan(0);
    const logged = JSON.stringify(system.logs);
    const longLived = [
      ...system.instagram.longLivedTokens,
      ...system.facebook.longLivedTokens,
      ...system.threads.longLivedTokens,
    ];
    const pageTokens = [...system.facebook.pageTokens.keys()];
    for (const token of [...issued, ...longLived, ...pageTokens]) {
      expect(logged).not.toContain(token);
    }
  });
}
