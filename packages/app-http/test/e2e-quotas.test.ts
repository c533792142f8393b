/**
 * The quotas and the upload checks end to end, in both modes (embedded: PGlite and the
 * in-process queue; production: PostgreSQL and Redis), through the HTTP API on a real socket:
 * WEBHOOKS_MAX_PER_ACCOUNT, SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT (sandbox, tokens and the OAuth
 * callback), WORKSPACES_MAX_PER_USER and MEDIA_QUOTA_BYTES, each refused with its setting named
 * and nothing stored; a file whose first bytes are not its type; a multipart body cut short.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startConnect, throughConsent } from './e2e/connect-scenarios.ts';
import type { Mode } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface ErrorJson {
  error: { code: string; message: string };
}

const QUOTAS = {
  WEBHOOKS_MAX_PER_ACCOUNT: '2',
  SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: '3',
  WORKSPACES_MAX_PER_USER: '1',
  MEDIA_QUOTA_BYTES: '10000',
};
/** 4,000 bytes that start as an MP4 (its `ftyp` box). */
const VIDEO = Buffer.alloc(4000, 'quota-');
Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]).copy(VIDEO);

describe.each<Mode>(['embedded', 'production'])('quotas and upload checks, %s mode', (mode) => {
  const e2e = useSystem(mode, { env: QUOTAS });
  const mediaDir = () => e2e.get().mediaDir;

  const sys = () => e2e.get();
  const refusedWith = (
    response: { status: number; body: unknown },
    status: number,
    code: string,
    setting: string,
  ) => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    const { error } = response.body as ErrorJson;
    expect(error.code).toBe(code);
    expect(error.message).toContain(setting);
  };

  async function upload(
    body: Buffer,
    type: string,
  ): Promise<{ status: number; body: unknown; headers: Headers }> {
    const response = await fetch(`${sys().api.baseUrl}/media`, {
      method: 'POST',
      headers: { authorization: sys().api.authorization(), 'content-type': type },
      body,
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }

  it('WEBHOOKS_MAX_PER_ACCOUNT: the third webhook is refused, nothing stored', async (ctx) => {
    e2e.orSkip(ctx);
    const { api } = sys();
    const hook = { url: 'http://127.0.0.1:9/hooks', events: ['post.published'] };
    // Four at once: the limit holds under the race (count and insert under one lock).
    const raced = await Promise.all(
      [1, 2, 3, 4].map(() => api.call<ErrorJson>('POST', '/webhooks', hook)),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    refusedWith(
      await api.call('POST', '/webhooks', hook),
      409,
      'limit_exceeded',
      'WEBHOOKS_MAX_PER_ACCOUNT',
    );
    const listed = await api.call<{ data: unknown[] }>('GET', '/webhooks');
    expect(listed.body.data).toHaveLength(2);
  });

  it('WORKSPACES_MAX_PER_USER: the second workspace is refused, nothing stored', async (ctx) => {
    e2e.orSkip(ctx);
    const { api } = sys();
    expect((await api.call('POST', '/workspaces', { name: 'First' })).status).toBe(201);
    refusedWith(
      await api.call('POST', '/workspaces', { name: 'Second' }),
      409,
      'limit_exceeded',
      'WORKSPACES_MAX_PER_USER',
    );
    const listed = await api.call<{ data: Array<{ name: string }> }>('GET', '/workspaces');
    expect(listed.body.data.map((w) => w.name)).toEqual(['First']);
  });

  it('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: sandbox, tokens and the OAuth callback', async (ctx) => {
    e2e.orSkip(ctx);
    const system = sys();
    const { api } = system;
    const count = async () =>
      (await api.call<{ data: unknown[] }>('GET', '/social-accounts')).body.data.length;
    const held = await count();
    expect(held).toBeLessThanOrEqual(1);
    for (let i = held; i < 2; i++) {
      const made = await api.call('POST', '/social-accounts', {
        platform: 'twitter',
        sandbox: true,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    // LinkedIn's consent yields two connections (the member and an organization): one slot
    // left is not enough, and neither is created.
    const started = await startConnect(system, 'linkedin');
    const callback = await throughConsent(system, started.authorization_url);
    expect(callback.status).toBe(400);
    expect(await callback.text()).toContain('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT');
    expect(await count()).toBe(2);
    // The last slot, taken by one of three at once; then every path is refused.
    const raced = await Promise.all(
      [1, 2, 3].map(() =>
        api.call('POST', '/social-accounts', { platform: 'twitter', sandbox: true }),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    refusedWith(
      await api.call('POST', '/social-accounts', { platform: 'twitter', sandbox: true }),
      409,
      'limit_exceeded',
      'SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT',
    );
    refusedWith(
      await api.call('POST', '/social-accounts', {
        platform: 'tiktok',
        external_id: 'tt-over-quota',
        access_token: 'token-over-quota',
      }),
      409,
      'limit_exceeded',
      'SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT',
    );
    const tiktok = await startConnect(system, 'tiktok');
    const refused = await throughConsent(system, tiktok.authorization_url);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT');
    expect(await count()).toBe(3);
  });

  it('MEDIA_QUOTA_BYTES: 413 media_quota_exceeded while streaming, nothing kept', async (ctx) => {
    e2e.orSkip(ctx);
    const before = readdirSync(mediaDir()).length;
    for (let i = 0; i < 2; i++) expect((await upload(VIDEO, 'video/mp4')).status).toBe(201);
    const over = await upload(VIDEO, 'video/mp4');
    refusedWith(over, 413, 'media_quota_exceeded', 'MEDIA_QUOTA_BYTES');
    // Multipart: no Content-Length of the file itself, refused as the bytes pass the quota.
    const boundary = 'qUota';
    const multipart = await upload(
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        ),
        VIDEO,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
      `multipart/form-data; boundary=${boundary}`,
    );
    refusedWith(multipart, 413, 'media_quota_exceeded', 'MEDIA_QUOTA_BYTES');
    const listed = await sys().api.call<{ data: unknown[] }>('GET', '/media');
    expect(listed.body.data).toHaveLength(2);
    expect(readdirSync(mediaDir()).length).toBe(before + 2);
  });

  it('a file whose first bytes are not its type: 415 media_type_mismatch, nothing kept', async (ctx) => {
    e2e.orSkip(ctx);
    const before = readdirSync(mediaDir()).length;
    const html = Buffer.from('<!doctype html><html><script>alert(document.domain)</script></html>');
    const refused = await upload(html, 'image/png');
    expect(refused.status, JSON.stringify(refused.body)).toBe(415);
    expect((refused.body as ErrorJson).error.code).toBe('media_type_mismatch');
    expect(readdirSync(mediaDir()).length).toBe(before);
  });

  it('a multipart body cut short before its closing boundary: 400, nothing kept', async (ctx) => {
    e2e.orSkip(ctx);
    const before = readdirSync(mediaDir()).length;
    const boundary = 'cUtShort';
    const truncated = await upload(
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        ),
        VIDEO.subarray(0, 1000),
      ]),
      `multipart/form-data; boundary=${boundary}`,
    );
    expect(truncated.status, JSON.stringify(truncated.body)).toBe(400);
    expect((truncated.body as ErrorJson).error.code).toBe('bad_request');
    expect(readdirSync(mediaDir()).length).toBe(before);
  });
});
