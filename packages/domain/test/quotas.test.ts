// The per-account and per-user quotas over the in-memory fakes: WEBHOOKS_MAX_PER_ACCOUNT,
// SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT (token and sandbox connects) and WORKSPACES_MAX_PER_USER.
// Each refusal is limit_exceeded naming its setting, and stores nothing.
import { describe, expect, it } from 'vitest';
import {
  connectSocialAccount,
  createWebhook,
  createWorkspace,
  deleteWebhook,
  listSocialAccounts,
  listWebhooks,
  listWorkspaces,
} from '../src/index.ts';
import { createTestDeps, seedUser, seedWorkspace } from '../src/testing/index.ts';
import { errorOf, unwrap } from './support.ts';

describe('quotas', () => {
  it('WEBHOOKS_MAX_PER_ACCOUNT: per account, freed by a delete', async () => {
    const deps = createTestDeps({ settings: { maxWebhooksPerAccount: 2 } });
    const alice = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    const hook = { url: 'https://hooks.example.com/sp', events: ['post.published'] };
    const first = unwrap(await createWebhook(deps, alice.ctx, hook));
    unwrap(await createWebhook(deps, alice.ctx, hook));
    expect(errorOf(await createWebhook(deps, alice.ctx, hook))).toMatchObject({
      code: 'limit_exceeded',
      message: expect.stringContaining('WEBHOOKS_MAX_PER_ACCOUNT'),
    });
    expect(await listWebhooks(deps, alice.ctx)).toHaveLength(2);
    unwrap(await createWebhook(deps, team.ctx, hook));
    unwrap(await deleteWebhook(deps, alice.actor, first.id));
    unwrap(await createWebhook(deps, alice.ctx, hook));
  });

  it('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: tokens and sandbox connections alike', async () => {
    const deps = createTestDeps({ settings: { maxSocialAccountsPerAccount: 2 } });
    const alice = await seedUser(deps);
    unwrap(await connectSocialAccount(deps, alice.ctx, { platform: 'twitter', sandbox: true }));
    unwrap(
      await connectSocialAccount(deps, alice.ctx, {
        platform: 'youtube',
        externalId: 'UC1',
        accessToken: 'ya29.a',
      }),
    );
    for (const input of [
      { platform: 'twitter', sandbox: true },
      { platform: 'youtube', externalId: 'UC2', accessToken: 'ya29.b' },
    ]) {
      expect(errorOf(await connectSocialAccount(deps, alice.ctx, input))).toMatchObject({
        code: 'limit_exceeded',
        message: expect.stringContaining('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT'),
      });
    }
    expect(await listSocialAccounts(deps, alice.ctx)).toHaveLength(2);
  });

  it('WORKSPACES_MAX_PER_USER: the workspaces a user owns', async () => {
    const deps = createTestDeps({ settings: { maxWorkspacesPerUser: 2 } });
    const alice = await seedUser(deps, 'alice@example.com');
    const bob = await seedUser(deps, 'bob@example.com');
    unwrap(await createWorkspace(deps, alice.actor, { name: 'One' }));
    unwrap(await createWorkspace(deps, alice.actor, { name: 'Two' }));
    expect(errorOf(await createWorkspace(deps, alice.actor, { name: 'Three' }))).toMatchObject({
      code: 'limit_exceeded',
      message: expect.stringContaining('WORKSPACES_MAX_PER_USER'),
    });
    expect(await listWorkspaces(deps, alice.actor)).toHaveLength(2);
    unwrap(await createWorkspace(deps, bob.actor, { name: 'Bob' }));
  });
});
