import { describe, expect, it } from 'vitest';
import {
  type CredentialsOutcome,
  connectSocialAccount,
  type PlatformCredentials,
  type RefreshOutcome,
  refreshExpiringTokens,
  secretBinding,
} from '../src/index.ts';
import { createTestDeps, ScriptedPlatformRegistry, seedUser } from '../src/testing/index.ts';

/** A credentials platform whose answers the test writes. */
function scripted(answer: CredentialsOutcome, refresh?: RefreshOutcome) {
  const calls: Record<string, string>[] = [];
  const connector: PlatformCredentials = {
    platform: 'bluesky',
    fields: [
      { name: 'handle', description: 'the handle', maxLength: 20, secret: false },
      { name: 'app_password', description: 'an app password', maxLength: 20, secret: true },
    ],
    async connect(fields) {
      calls.push({ ...fields });
      return answer;
    },
    ...(refresh ? { refresh: async () => refresh } : {}),
  };
  return { connector, calls };
}

const IDENTITY: CredentialsOutcome = {
  ok: true,
  identity: {
    externalId: 'did:plc:alice',
    displayName: 'alice.example',
    tokens: {
      accessToken: 'access-jwt',
      refreshToken: 'refresh-jwt',
      expiresAt: new Date('2026-01-01T01:00:00Z'),
      scopes: [],
    },
  },
};

async function setup(answer: CredentialsOutcome = IDENTITY, refresh?: RefreshOutcome) {
  const { connector, calls } = scripted(answer, refresh);
  const platforms = new ScriptedPlatformRegistry(['tiktok', 'bluesky']).withCredentials(connector);
  const deps = createTestDeps({ platforms });
  const alice = await seedUser(deps, 'alice@example.com');
  return { deps, alice, calls };
}

const credentials = { handle: 'alice.example', app_password: 'aaaa-bbbb' };

describe('connecting by credentials', () => {
  it('stores the identity the platform gives, tokens encrypted, the password nowhere', async () => {
    const { deps, alice, calls } = await setup();
    const result = await connectSocialAccount(deps, alice.ctx, {
      platform: 'bluesky',
      credentials,
    });
    if (!result.ok) throw new Error(result.error.message);
    const connection = result.value;
    expect(calls).toEqual([credentials]);
    expect(connection).toMatchObject({
      platform: 'bluesky',
      externalId: 'did:plc:alice',
      displayName: 'alice.example',
      tokenExpiresAt: new Date('2026-01-01T01:00:00Z'),
      status: 'active',
      sandbox: false,
    });
    const stored = await deps.repos.socialAccounts.findById(connection.id);
    expect(
      deps.cipher.decrypt(
        stored?.accessTokenCiphertext ?? '',
        secretBinding.accessToken(connection.id),
      ),
    ).toBe('access-jwt');
    expect(JSON.stringify(stored)).not.toContain('aaaa-bbbb');
    // The same account again: the same connection, renewed.
    const again = await connectSocialAccount(deps, alice.ctx, { platform: 'bluesky', credentials });
    expect(again.ok && again.value.id).toBe(connection.id);
  });

  it('a refusal is platform_auth_failed, an outage platform_unavailable; nothing stored', async () => {
    const refused = await setup({
      ok: false,
      error: {
        code: 'AuthenticationRequired',
        message: 'Invalid identifier or password',
        transient: false,
      },
    });
    const answer = await connectSocialAccount(refused.deps, refused.alice.ctx, {
      platform: 'bluesky',
      credentials,
    });
    expect(answer).toEqual({
      ok: false,
      error: {
        code: 'platform_auth_failed',
        message:
          'bluesky refused the credentials (AuthenticationRequired): Invalid identifier or password',
      },
    });
    expect(await refused.deps.repos.socialAccounts.listByAccount(refused.alice.user.id)).toEqual(
      [],
    );
    const down = await setup({
      ok: false,
      error: { code: 'network_error', message: 'down', transient: true },
    });
    const outage = await connectSocialAccount(down.deps, down.alice.ctx, {
      platform: 'bluesky',
      credentials,
    });
    expect(!outage.ok && outage.error.code).toBe('platform_unavailable');
  });

  it('names every missing, wrong or foreign field, without calling the platform', async () => {
    const { deps, alice, calls } = await setup();
    const fieldsOf = async (input: Parameters<typeof connectSocialAccount>[2]) => {
      const result = await connectSocialAccount(deps, alice.ctx, input);
      if (result.ok || result.error.code !== 'validation_failed') throw new Error('expected a 400');
      return result.error.details.map((problem) => problem.field);
    };
    expect(await fieldsOf({ platform: 'bluesky' })).toEqual(['handle', 'app_password']);
    expect(
      await fieldsOf({
        platform: 'bluesky',
        credentials: { handle: 7, app_password: 'x'.repeat(21) },
      }),
    ).toEqual(['handle', 'app_password']);
    expect(
      await fieldsOf({ platform: 'bluesky', accessToken: 't', externalId: 'e', credentials }),
    ).toEqual(['external_id', 'access_token']);
    expect(
      await fieldsOf({ platform: 'bluesky', credentials: { ...credentials, pin: '1' } }),
    ).toEqual(['pin']);
    expect(
      await fieldsOf({ platform: 'tiktok', externalId: 'e', accessToken: 't', credentials }),
    ).toEqual(['handle', 'app_password']);
    expect(await fieldsOf({ platform: 'bluesky', sandbox: true, credentials })).toEqual([
      'handle',
      'app_password',
    ]);
    expect(calls).toEqual([]);
  });

  it('the renewal pass renews credentials connections through their connector', async () => {
    // An access token that expires within the pass's margin.
    const soon = structuredClone(IDENTITY);
    const { deps, alice } = await setup(soon, {
      kind: 'refreshed',
      tokens: {
        accessToken: 'new-access',
        refreshToken: 'new-refresh',
        expiresAt: new Date(Date.now() + 7_200_000),
        scopes: [],
      },
    });
    if (soon.ok) soon.identity.tokens.expiresAt = new Date(deps.clock.now().getTime() + 60_000);
    const result = await connectSocialAccount(deps, alice.ctx, {
      platform: 'bluesky',
      credentials,
    });
    if (!result.ok) throw new Error(result.error.message);
    expect(await refreshExpiringTokens(deps)).toEqual({ refreshed: 1, expired: 0, failed: 0 });
    const stored = await deps.repos.socialAccounts.findById(result.value.id);
    expect(
      deps.cipher.decrypt(
        stored?.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(result.value.id),
      ),
    ).toBe('new-refresh');
  });
});

describe('connecting by credentials past SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT', () => {
  it('a new connection is refused naming the setting; renewing the one it has is not', async () => {
    const { deps, alice } = await setup();
    deps.settings.maxSocialAccountsPerAccount = 1;
    const first = await connectSocialAccount(deps, alice.ctx, { platform: 'bluesky', credentials });
    expect(first.ok).toBe(true);
    // The same Bluesky account again: a renewal, within the quota.
    const again = await connectSocialAccount(deps, alice.ctx, { platform: 'bluesky', credentials });
    expect(again.ok && first.ok && again.value.id === first.value.id).toBe(true);
    // Another one: refused, nothing stored.
    const other = scripted({
      ...IDENTITY,
      identity: { ...IDENTITY.identity, externalId: 'did:plc:bob' },
    } as CredentialsOutcome);
    const platforms = new ScriptedPlatformRegistry(['tiktok', 'bluesky']).withCredentials(
      other.connector,
    );
    const refused = await connectSocialAccount({ ...deps, platforms }, alice.ctx, {
      platform: 'bluesky',
      credentials,
    });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'limit_exceeded',
        message: expect.stringContaining('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT'),
      },
    });
    expect(await deps.repos.socialAccounts.countByAccount(alice.user.id)).toBe(1);
  });
});
