import { secretBinding } from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  seedWorkspace,
} from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const connect = (payload: object, headers = h.as(h.alice)) =>
  h.call({ method: 'POST', url: '/social-accounts', headers, payload });

const VALID = {
  platform: 'tiktok',
  external_id: 'open-id-1',
  display_name: 'Alice on TikTok',
  access_token: 'act.secret-token',
  refresh_token: 'rft.secret-refresh',
  token_expires_at: '2026-02-01T00:00:00Z',
};

describe('POST /social-accounts', () => {
  it('201 with the connection, tokens never returned, tokens stored encrypted', async () => {
    const response = await connect(VALID);
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual([
      'created_at',
      'display_name',
      'external_id',
      'id',
      'platform',
      'sandbox',
      'scopes',
      'status',
      'token_expires_at',
    ]);
    expect(data).toMatchObject({
      platform: 'tiktok',
      external_id: 'open-id-1',
      display_name: 'Alice on TikTok',
      status: 'active',
      token_expires_at: '2026-02-01T00:00:00.000Z',
    });
    expect(response.headers.location).toBe(`/social-accounts/${data.id}`);
    expect(response.body).not.toContain('secret');
    const stored = await h.deps.repos.socialAccounts.findById(data.id);
    expect(stored?.accessTokenCiphertext).not.toContain('secret-token');
    expect(
      h.deps.cipher.decrypt(
        stored?.accessTokenCiphertext ?? '',
        secretBinding.accessToken(data.id),
      ),
    ).toBe('act.secret-token');
  });

  it('validates platform, external_id, access_token and token_expires_at', async () => {
    expectInvalid(await connect({ ...VALID, platform: 'myspace' }), 'platform');
    expectInvalid(await connect({ ...VALID, external_id: '' }), 'external_id');
    expectInvalid(await connect({ ...VALID, access_token: undefined }), 'access_token');
    expectInvalid(await connect({ ...VALID, token_expires_at: 'soon' }), 'token_expires_at');
  });

  it('a connection in a team; 403 outside it', async () => {
    const team = await seedWorkspace(h.deps, h.bob);
    expectError(await connect({ ...VALID, workspace_id: team.account.id }), 403, 'forbidden');
    const mine = await seedWorkspace(h.deps, h.alice);
    expect((await connect({ ...VALID, workspace_id: mine.account.id })).statusCode).toBe(201);
  });
});

describe('GET and DELETE /social-accounts', () => {
  it('lists own connections only; deletes with 204; others get 404', async () => {
    const created = (await connect(VALID)).json().data;
    const list = await h.call({ method: 'GET', url: '/social-accounts', headers: h.as(h.alice) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((c: { id: string }) => c.id)).toEqual([created.id]);
    expect(list.body).not.toContain('secret');
    const bobs = await h.call({ method: 'GET', url: '/social-accounts', headers: h.as(h.bob) });
    expect(bobs.json()).toEqual({ data: [] });

    const url = `/social-accounts/${created.id}`;
    expectError(await h.call({ method: 'DELETE', url, headers: h.as(h.bob) }), 404, 'not_found');
    const deleted = await h.call({ method: 'DELETE', url, headers: h.as(h.alice) });
    expect(deleted.statusCode).toBe(204);
    expectError(await h.call({ method: 'DELETE', url, headers: h.as(h.alice) }), 404, 'not_found');
  });
});
