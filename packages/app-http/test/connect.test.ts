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
const callback = (platform: string, query: string) =>
  h.call({ method: 'GET', url: `/oauth/callback/${platform}?${query}` });

describe('POST /social-accounts/connect', () => {
  it('201 with the consent URL, the state and its expiry', async () => {
    const response = await connect({ platform: 'tiktok' });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual(['authorization_url', 'expires_at', 'state']);
    const url = new URL(data.authorization_url);
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
    const response = await callback('tiktok', `code=abc&state=${started.state}`);
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
    const response = await callback('tiktok', `code=abc&state=${started.state}`);
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
