// POST /social-accounts/connect, GET /oauth/callback/:platform and sandbox connections at the
// HTTP layer (the whole flow against fake platforms is in e2e-connect.test.ts).
import { PLATFORM_DESCRIPTORS } from '@social-publisher/adapter-platforms';
import { ScriptedOAuth, ScriptedPlatformRegistry } from '@social-publisher/domain/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, expectError, expectInvalid, type Harness } from './support.ts';

let h: Harness;
let tiktok: ScriptedOAuth;

beforeEach(async () => {
  tiktok = new ScriptedOAuth('tiktok');
  h = await createHarness({
    platforms: new ScriptedPlatformRegistry(
      PLATFORM_DESCRIPTORS.map((descriptor) => descriptor.rules),
    ).withOAuth(tiktok),
  });
  h.deps.settings.connectReturnOrigins = ['https://app.example.com'];
  h.deps.settings.publicBaseUrl = 'https://api.example.com';
});
afterEach(() => h.close());

const connect = (payload: object, headers = h.as(h.alice)) =>
  h.call({ method: 'POST', url: '/social-accounts/connect', headers, payload });
const callback = (platform: string, query: string, cookie?: string) =>
  h.call({
    method: 'GET',
    url: `/oauth/callback/${platform}?${query}`,
    ...(cookie ? { headers: { cookie } } : {}),
  });

/** A path of an absolute URL of ours (PUBLIC_BASE_URL is https://api.example.com). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/**
 * What a browser does with authorization_url: our route answers the platform's consent URL
 * and the flow's cookie; returns them and the Cookie header the browser would send back.
 */
async function openConsent(authorizationUrl: string, cookie?: string) {
  const response = await h.call({
    method: 'GET',
    url: pathOf(authorizationUrl),
    ...(cookie ? { headers: { cookie } } : {}),
  });
  const setCookie = String(response.headers['set-cookie'] ?? '');
  return { response, setCookie, cookie: setCookie.split(';')[0] ?? '' };
}

describe('POST /social-accounts/connect', () => {
  it('201 with our consent link, the state and its expiry; the link sends the browser to the platform', async () => {
    const response = await connect({ platform: 'tiktok' });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual(['authorization_url', 'expires_at', 'state']);
    const ours = new URL(data.authorization_url);
    expect(`${ours.origin}${ours.pathname}`).toBe('https://api.example.com/oauth/authorize/tiktok');
    expect(ours.searchParams.get('state')).toBe(data.state);
    const { response: opened } = await openConsent(data.authorization_url);
    expect(opened.statusCode).toBe(302);
    expect(opened.headers['cache-control']).toBe('no-store');
    const url = new URL(String(opened.headers.location));
    expect(url.origin).toBe('https://consent.example');
    expect(url.searchParams.get('state')).toBe(data.state);
    expect(url.searchParams.get('redirect_uri')).toBe(
      'https://api.example.com/oauth/callback/tiktok',
    );
  });

  it('needs a credential; an unconfigured platform is a 400 naming the variables', async () => {
    expectError(await connect({ platform: 'tiktok' }, {}), 401, 'unauthorized');
    const error = expectError(
      await connect({ platform: 'youtube' }),
      400,
      'platform_not_configured',
    );
    expect(error.message).toMatch(/youtube/);
    tiktok.missingSettings = ['TIKTOK_CLIENT_ID', 'TIKTOK_CLIENT_SECRET'];
    const named = expectError(
      await connect({ platform: 'tiktok' }),
      400,
      'platform_not_configured',
    );
    expect(named.message).toContain('TIKTOK_CLIENT_ID and TIKTOK_CLIENT_SECRET');
  });

  it('refuses unknown platforms, foreign return URLs and unknown fields', async () => {
    expectInvalid(await connect({ platform: 'myspace' }), /platform/);
    expectInvalid(
      await connect({ platform: 'tiktok', return_url: 'https://evil.example.com/' }),
      'return_url',
    );
    expectInvalid(await connect({ platform: 'tiktok', scope: 'everything' }), /scope/);
  });
});

describe('GET /oauth/callback/:platform', () => {
  it('public: connects, then redirects to the return_url with the new ids', async () => {
    const started = (
      await connect({ platform: 'tiktok', return_url: 'https://app.example.com/done?keep=1' })
    ).json().data;
    const { cookie } = await openConsent(started.authorization_url);
    const response = await callback('tiktok', `code=abc&state=${started.state}`, cookie);
    expect(response.statusCode).toBe(302);
    expect(response.headers['cache-control']).toBe('no-store');
    const location = new URL(String(response.headers.location));
    expect(location.origin + location.pathname).toBe('https://app.example.com/done');
    expect(location.searchParams.get('keep')).toBe('1');
    expect(location.searchParams.get('platform')).toBe('tiktok');
    const [id] = (location.searchParams.get('social_account_ids') ?? '').split(',');
    const listed = await h.call({ method: 'GET', url: '/social-accounts', headers: h.as(h.alice) });
    expect(listed.json().data).toEqual([
      expect.objectContaining({ id, platform: 'tiktok', sandbox: false, scopes: ['publish'] }),
    ]);
    expect(listed.body).not.toContain('access-tiktok');
  });

  it('without return_url: an HTML page, escaped, saying what happened', async () => {
    tiktok.connectWith(() => ({
      ok: true,
      identities: [
        {
          externalId: 'x',
          displayName: '<script>alert(1)</script>',
          tokens: { accessToken: 'a', refreshToken: null, expiresAt: null, scopes: [] },
        },
      ],
    }));
    const started = (await connect({ platform: 'tiktok' })).json().data;
    const { cookie } = await openConsent(started.authorization_url);
    const response = await callback('tiktok', `code=abc&state=${started.state}`, cookie);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('Account connected');
    expect(response.body).not.toContain('<script>');
    expect(response.body).toContain('&#60;script&#62;');
    const refused = await callback('tiktok', 'code=abc&state=nope');
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Account not connected');
  });

  it('odd queries never reach a 500', async () => {
    for (const query of [
      '',
      'state=',
      `state=${'x'.repeat(600)}`,
      'error=access_denied',
      'code[]=1',
    ]) {
      const response = await callback('tiktok', query);
      expect(response.statusCode, query).toBeLessThan(500);
    }
    expect((await callback('unknown-platform', 'state=abc')).statusCode).toBe(400);
  });
});

describe('the flow is bound to the browser that opened it', () => {
  it('the cookie: one per flow, HttpOnly, SameSite=Lax, Secure on https, for the OAuth routes, as long as the flow', async () => {
    const started = (await connect({ platform: 'tiktok' })).json().data;
    const { setCookie, cookie } = await openConsent(started.authorization_url);
    const [, ...attributes] = setCookie.split(/;\s*/);
    expect(cookie).toMatch(/^sp_oauth_[0-9a-f]{24}=[A-Za-z0-9_-]{43}$/);
    expect(attributes.sort()).toEqual(
      ['HttpOnly', 'Max-Age=600', 'Path=/oauth/', 'SameSite=Lax', 'Secure'].sort(),
    );
    // The nonce is not the state, and only its hash is stored.
    const nonce = cookie.split('=')[1] ?? '';
    expect(nonce).not.toBe(started.state);
    expect(JSON.stringify([...h.deps.store.tables.oauthStates.values()])).not.toContain(nonce);
    // Plain http (a local PUBLIC_BASE_URL under a path): no Secure, the path kept.
    h.deps.settings.publicBaseUrl = 'http://127.0.0.1:3000/api';
    const local = (await connect({ platform: 'tiktok' })).json().data;
    const plain = await h.call({
      method: 'GET',
      url: `/oauth/authorize/tiktok?state=${local.state}`,
    });
    const plainCookie = String(plain.headers['set-cookie']);
    expect(plainCookie).toContain('Path=/api/oauth/');
    expect(plainCookie).not.toContain('Secure');
  });

  it("a code sent with someone else's state, from a browser without that flow's cookie, connects nothing", async () => {
    // Mallory starts a flow on her account and opens it in her browser; the victim's browser
    // then arrives at the callback with the victim's code and Mallory's state.
    const mallory = (await connect({ platform: 'tiktok' }, h.as(h.bob))).json().data;
    const { cookie: mallorysCookie } = await openConsent(mallory.authorization_url);
    const victim = (await connect({ platform: 'tiktok' })).json().data;
    const { cookie: victimsCookie } = await openConsent(victim.authorization_url);
    for (const cookie of [undefined, victimsCookie, 'sp_oauth_x=y']) {
      const fresh = (await connect({ platform: 'tiktok' }, h.as(h.bob))).json().data;
      await openConsent(fresh.authorization_url);
      const refused = await callback('tiktok', `code=victims&state=${fresh.state}`, cookie);
      expect(refused.statusCode, String(cookie)).toBe(400);
      expect(refused.body).toContain('browser_mismatch');
      expect(refused.body).toContain('Account not connected');
    }
    expect(tiktok.exchanges).toEqual([]);
    const bobs = await h.call({ method: 'GET', url: '/social-accounts', headers: h.as(h.bob) });
    expect(bobs.json().data).toEqual([]);
    // Her own browser still completes her own flow.
    const own = await callback('tiktok', `code=hers&state=${mallory.state}`, mallorysCookie);
    expect(own.statusCode).toBe(200);
  });

  it('a consent link opened in a second browser is refused; the first may open it again', async () => {
    const started = (
      await connect({ platform: 'tiktok', return_url: 'https://app.example.com/r' })
    ).json().data;
    const first = await openConsent(started.authorization_url);
    expect(first.response.statusCode).toBe(302);
    const second = await openConsent(started.authorization_url);
    expect(second.response.statusCode).toBe(400);
    expect(second.response.headers['set-cookie']).toBeUndefined();
    expect(second.response.body).toContain('browser_mismatch');
    const again = await openConsent(started.authorization_url, first.cookie);
    expect(again.response.statusCode).toBe(302);
    expect(again.cookie).toBe(first.cookie);
    const done = await callback('tiktok', `code=c&state=${started.state}`, first.cookie);
    expect(done.statusCode).toBe(302);
    // The flow is over: its cookie is removed, and the link is dead.
    expect(String(done.headers['set-cookie'])).toMatch(/^sp_oauth_[0-9a-f]{24}=; Max-Age=0;/);
    const dead = await openConsent(started.authorization_url, first.cookie);
    expect(dead.response.statusCode).toBe(400);
    expect(dead.response.body).toContain('unknown or already used state');
  });

  it('several flows in parallel in one browser each complete with their own cookie', async () => {
    const flows = [];
    for (let i = 0; i < 3; i += 1) {
      const started = (await connect({ platform: 'tiktok' })).json().data;
      flows.push({ started, cookie: (await openConsent(started.authorization_url)).cookie });
    }
    const jar = flows.map((f) => f.cookie).join('; ');
    for (const { started } of flows.reverse()) {
      const done = await callback('tiktok', `code=c&state=${started.state}`, jar);
      expect(done.statusCode).toBe(200);
      expect(done.body).toContain('Account connected');
    }
    expect(tiktok.exchanges).toHaveLength(3);
  });

  it('the consent link refuses odd or unknown states with a page, never a 500', async () => {
    for (const query of ['', 'state=', 'state=nope', `state=${'x'.repeat(600)}`, 'state[]=1']) {
      const response = await h.call({ method: 'GET', url: `/oauth/authorize/tiktok?${query}` });
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['set-cookie'], query).toBeUndefined();
    }
    const started = (await connect({ platform: 'tiktok' })).json().data;
    const foreign = await h.call({
      method: 'GET',
      url: `/oauth/authorize/youtube?state=${started.state}`,
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body).toContain('made for tiktok');
  });
});

describe('sandbox connections', () => {
  it('POST /social-accounts { platform, sandbox: true } needs no token and says sandbox', async () => {
    const response = await h.call({
      method: 'POST',
      url: '/social-accounts',
      headers: h.as(h.alice),
      payload: { platform: 'linkedin', sandbox: true, display_name: 'Demo' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({
      platform: 'linkedin',
      sandbox: true,
      status: 'active',
    });
    const withToken = await h.call({
      method: 'POST',
      url: '/social-accounts',
      headers: h.as(h.alice),
      payload: { platform: 'linkedin', sandbox: true, access_token: 'x' },
    });
    expectInvalid(withToken, 'access_token');
    const realWithoutToken = await h.call({
      method: 'POST',
      url: '/social-accounts',
      headers: h.as(h.alice),
      payload: { platform: 'linkedin', external_id: 'x' },
    });
    expectInvalid(realWithoutToken, 'access_token');
  });

  it('a post to a sandbox connection says sandbox, and takes sandbox_outcome', async () => {
    const created = await h.call({
      method: 'POST',
      url: '/social-accounts',
      headers: h.as(h.alice),
      payload: { platform: 'tiktok', sandbox: true },
    });
    const post = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: {
        content: 'demo',
        social_account_ids: [created.json().data.id],
        media_urls: ['https://cdn.example.com/v.mp4'],
        platform_options: { tiktok: { sandbox_outcome: 'failed', tiktokPrivacy: 'SELF_ONLY' } },
      },
    });
    expect(post.statusCode, post.body).toBe(201);
    expect(post.json().data).toMatchObject({ sandbox: true, post_targets: [{ sandbox: true }] });
    const bad = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: {
        social_account_ids: [created.json().data.id],
        media_urls: ['https://cdn.example.com/v.mp4'],
        platform_options: { tiktok: { sandbox_outcome: 'maybe' } },
      },
    });
    expectInvalid(bad, /sandbox_outcome/);
  });
});
