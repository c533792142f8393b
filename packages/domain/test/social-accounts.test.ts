import { describe, expect, it } from 'vitest';
import {
  connectSocialAccount,
  deleteSocialAccount,
  listSocialAccounts,
  secretBinding,
} from '../src/index.ts';
import { createTestDeps, seedUser } from '../src/testing/index.ts';
import { errorOf, UNKNOWN_ID, unwrap } from './support.ts';

describe('social accounts', () => {
  it('connects with encrypted tokens', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const connection = unwrap(
      await connectSocialAccount(deps, alice.ctx, {
        platform: 'youtube',
        externalId: ' UC123 ',
        displayName: 'My channel',
        accessToken: 'ya29.access',
        refreshToken: '1//refresh',
        tokenExpiresAt: '2026-01-01T01:00:00Z',
      }),
    );
    expect(connection).toMatchObject({
      accountId: alice.user.id,
      platform: 'youtube',
      externalId: 'UC123',
      displayName: 'My channel',
      status: 'active',
      tokenExpiresAt: new Date('2026-01-01T01:00:00Z'),
    });
    expect(JSON.stringify(connection)).not.toContain('ya29.access');
    expect(
      deps.cipher.decrypt(
        connection.accessTokenCiphertext,
        secretBinding.accessToken(connection.id),
      ),
    ).toBe('ya29.access');
    expect(
      deps.cipher.decrypt(
        connection.refreshTokenCiphertext ?? '',
        secretBinding.refreshToken(connection.id),
      ),
    ).toBe('1//refresh');
    expect(await listSocialAccounts(deps, alice.ctx)).toEqual([connection]);
  });

  it('optional fields may be left out', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const connection = unwrap(
      await connectSocialAccount(deps, alice.ctx, {
        platform: 'twitter',
        externalId: 'x',
        accessToken: 't',
      }),
    );
    expect(connection).toMatchObject({
      displayName: null,
      refreshTokenCiphertext: null,
      tokenExpiresAt: null,
    });
  });

  it('validates the input', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const error = errorOf(await connectSocialAccount(deps, alice.ctx, { platform: 'x' }));
    expect(error.code).toBe('validation_failed');
  });

  it('deletes only reachable connections', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const bob = await seedUser(deps);
    const connection = unwrap(
      await connectSocialAccount(deps, alice.ctx, {
        platform: 'tiktok',
        externalId: 'x',
        accessToken: 't',
      }),
    );
    expect(errorOf(await deleteSocialAccount(deps, bob.actor, connection.id)).code).toBe(
      'not_found',
    );
    expect(errorOf(await deleteSocialAccount(deps, bob.actor, UNKNOWN_ID)).code).toBe('not_found');
    unwrap(await deleteSocialAccount(deps, alice.actor, connection.id));
    expect(await listSocialAccounts(deps, alice.ctx)).toEqual([]);
    deps.repos.socialAccounts.delete = async () => false;
    const again = unwrap(
      await connectSocialAccount(deps, alice.ctx, {
        platform: 'tiktok',
        externalId: 'y',
        accessToken: 't',
      }),
    );
    expect(errorOf(await deleteSocialAccount(deps, alice.actor, again.id)).code).toBe('not_found');
  });
});
