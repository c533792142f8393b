/**
 * POST /social-accounts for a platform connected by credentials: the body takes the fields the
 * platform declares (documented in the OpenAPI body schema, nothing else accepted), the domain
 * trades them through the platform's connector and stores the identity like an OAuth callback.
 * The connectors here are scripted: any platform declaring credentials gets the same route.
 */
import { createPlatformRegistry, definePlatform } from '@social-publisher/adapter-platforms';
import type { CredentialsOutcome, PlatformCredentials } from '@social-publisher/domain';
import { ScriptedPlatformRegistry } from '@social-publisher/domain/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  realPlatformRules,
} from './support.ts';

let h: Harness | undefined;
afterEach(() => h?.close());

interface Scripted extends PlatformCredentials {
  calls: Record<string, string>[];
}

function scriptedCredentials(answer: () => CredentialsOutcome): Scripted {
  const calls: Record<string, string>[] = [];
  return {
    platform: 'bluesky',
    fields: [
      { name: 'handle', description: 'the handle', maxLength: 253, secret: false },
      { name: 'app_password', description: 'an app password', maxLength: 200, secret: true },
    ],
    calls,
    async connect(fields) {
      calls.push({ ...fields });
      return answer();
    },
  };
}

const identity = (did: string): CredentialsOutcome => ({
  ok: true,
  identity: {
    externalId: did,
    displayName: 'alice.bsky.social',
    tokens: {
      accessToken: 'access-jwt',
      refreshToken: 'refresh-jwt',
      expiresAt: new Date('2030-01-01T00:00:00Z'),
      scopes: [],
    },
  },
});

async function harnessWith(connector: Scripted) {
  h = await createHarness({ platforms: realPlatformRules().withCredentials(connector) });
  const harness = h;
  return (payload: object) =>
    harness.call({
      method: 'POST',
      url: '/social-accounts',
      headers: harness.as(harness.alice),
      payload,
    });
}

describe('POST /social-accounts by credentials', () => {
  it('201: the platform gets the fields, the identity is stored, the password nowhere', async () => {
    const connector = scriptedCredentials(() => identity('did:plc:alice'));
    const connect = await harnessWith(connector);
    const response = await connect({
      platform: 'bluesky',
      handle: 'alice.bsky.social',
      app_password: 'aaaa-bbbb-cccc-dddd',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({
      platform: 'bluesky',
      external_id: 'did:plc:alice',
      display_name: 'alice.bsky.social',
      token_expires_at: '2030-01-01T00:00:00.000Z',
    });
    expect(connector.calls).toEqual([
      { handle: 'alice.bsky.social', app_password: 'aaaa-bbbb-cccc-dddd' },
    ]);
    expect(response.body).not.toContain('aaaa-bbbb');
    // Connecting the same account again renews the same connection.
    const again = await connect({ platform: 'bluesky', handle: 'alice', app_password: 'x' });
    expect(again.json().data.id).toBe(response.json().data.id);
  });

  it('400 platform_auth_failed when the platform refuses the credentials', async () => {
    const connect = await harnessWith(
      scriptedCredentials(() => ({
        ok: false,
        error: {
          code: 'AuthenticationRequired',
          message: 'Invalid identifier or password',
          transient: false,
        },
      })),
    );
    const response = await connect({ platform: 'bluesky', handle: 'a', app_password: 'wrong' });
    const error = expectError(response, 400, 'platform_auth_failed');
    expect(error.message).toBe(
      'bluesky refused the credentials (AuthenticationRequired): Invalid identifier or password',
    );
  });

  it('503 platform_unavailable when the platform cannot be reached', async () => {
    const connect = await harnessWith(
      scriptedCredentials(() => ({
        ok: false,
        error: { code: 'network_error', message: 'ECONNREFUSED', transient: true },
      })),
    );
    const response = await connect({ platform: 'bluesky', handle: 'a', app_password: 'b' });
    expectError(response, 503, 'platform_unavailable');
  });

  it('400 naming each missing, empty, too long or foreign field; the platform is not called', async () => {
    const connector = scriptedCredentials(() => identity('did:plc:never'));
    const connect = await harnessWith(connector);
    expectInvalid(await connect({ platform: 'bluesky', handle: 'a' }), 'app_password');
    expectInvalid(await connect({ platform: 'bluesky', handle: '', app_password: 'b' }), 'handle');
    expectInvalid(
      await connect({ platform: 'bluesky', handle: 'a', app_password: 'b'.repeat(201) }),
      'app_password',
    );
    expectInvalid(
      await connect({ platform: 'bluesky', handle: 'a', app_password: 'b', access_token: 't' }),
      'access_token',
    );
    expectInvalid(
      await connect({ platform: 'bluesky', handle: 'a', app_password: 'b', pin: '1' }),
      /pin|^$|body/,
    );
    expectInvalid(
      await connect({ platform: 'tiktok', external_id: 'x', access_token: 't', handle: 'a' }),
      'handle',
    );
    expectInvalid(
      await connect({ platform: 'bluesky', sandbox: true, app_password: 'b' }),
      'app_password',
    );
    expect(connector.calls).toEqual([]);
  });

  it('a sandbox connection of a credentials platform needs no credentials', async () => {
    const connect = await harnessWith(scriptedCredentials(() => identity('did:plc:never')));
    const response = await connect({ platform: 'bluesky', sandbox: true });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data.sandbox).toBe(true);
  });

  it('POST /social-accounts/connect points a credentials platform to POST /social-accounts', async () => {
    await harnessWith(scriptedCredentials(() => identity('did:plc:x')));
    const harness = h as Harness;
    const response = await harness.call({
      method: 'POST',
      url: '/social-accounts/connect',
      headers: harness.as(harness.alice),
      payload: { platform: 'bluesky' },
    });
    const error = expectError(response, 400, 'platform_not_configured');
    expect(error.message).toBe(
      'bluesky accounts connect by credentials, not OAuth: POST /social-accounts with handle and app_password',
    );
  });

  it('the OpenAPI body documents the fields and still takes nothing else', async () => {
    await harnessWith(scriptedCredentials(() => identity('did:plc:x')));
    const document = (await (h as Harness).call({ method: 'GET', url: '/openapi.json' })).json();
    const body =
      document.paths['/social-accounts'].post.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.handle).toMatchObject({ type: 'string', minLength: 1, maxLength: 253 });
    expect(body.properties.app_password.description).toMatch(/Never logged or returned/);
  });

  it('a platform that declares credentials in its descriptor alone gets the route', async () => {
    // Described here only: its fields reach the body schema, the checks and its connector.
    const acme = definePlatform({
      name: 'acme',
      label: 'Acme',
      media: {},
      settings: {},
      createPublisher: () => ({
        platform: 'acme',
        validate: () => [],
        publish: async () => ({ kind: 'published', platformPostId: '1', platformUrl: null }),
        resume: async () => ({ kind: 'published', platformPostId: '1', platformUrl: null }),
      }),
      createCredentials: () => ({
        platform: 'acme',
        fields: [{ name: 'pin', description: 'the account PIN', maxLength: 8, secret: true }],
        connect: async (fields) =>
          fields.pin === '1234'
            ? identity('acme-user-1')
            : {
                ok: false,
                error: { code: 'bad_pin', message: 'wrong PIN', transient: false },
              },
      }),
    });
    const registry = createPlatformRegistry({ settings: {} }, [acme]);
    const credentials = registry.credentials('acme');
    if (!credentials) throw new Error('acme declares credentials');
    h = await createHarness({
      platforms: new ScriptedPlatformRegistry([acme.rules]).withCredentials(credentials),
    });
    const harness = h;
    const connect = (payload: object) =>
      harness.call({
        method: 'POST',
        url: '/social-accounts',
        headers: harness.as(harness.alice),
        payload,
      });
    const created = await connect({ platform: 'acme', pin: '1234' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.external_id).toBe('acme-user-1');
    expectError(await connect({ platform: 'acme', pin: '0000' }), 400, 'platform_auth_failed');
    expectInvalid(await connect({ platform: 'acme' }), 'pin');
    expectInvalid(await connect({ platform: 'acme', pin: '123456789' }), 'pin');
  });
});
