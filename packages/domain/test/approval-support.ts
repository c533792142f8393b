/** A team that requires approval: its owner, an admin, a member, a connection and a webhook. */
import {
  type AccountContext,
  addMember,
  createWebhook,
  type PostWithTargets,
  type Role,
  updateWorkspace,
  type WebhookEvent,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedPlatformRegistry,
  type SeededUser,
  seedConnection,
  seedUser,
  seedWorkspace,
  type TestDeps,
} from '../src/testing/index.ts';
import { testRules, unwrap } from './support.ts';

/** The fake clock starts at 2026-01-01; an hour later is safely ahead. */
export const LATER = '2026-01-01T01:00:00.000Z';

export interface ApprovalTeam {
  deps: TestDeps;
  teamId: string;
  owner: SeededUser;
  admin: SeededUser;
  member: SeededUser;
  /** A caller's context in the team, as resolveContext would give it. */
  ctx(user: SeededUser): AccountContext;
  connectionId: string;
  /** The webhook deliveries stored so far for `event`, their payloads parsed. */
  sent(event: WebhookEvent): Array<{ post_id: string; data: Record<string, unknown> }>;
  /** A text post for the team's connection. */
  body(extra?: Record<string, unknown>): Record<string, unknown>;
}

export async function approvalTeam(options: { required?: boolean } = {}): Promise<ApprovalTeam> {
  const deps = createTestDeps({ platforms: new ScriptedPlatformRegistry(testRules()) });
  const owner = await seedUser(deps, 'owner@example.com');
  const admin = await seedUser(deps, 'admin@example.com');
  const member = await seedUser(deps, 'member@example.com');
  const team = await seedWorkspace(deps, owner);
  const teamId = team.account.id;
  const roles = new Map<string, Role>([[owner.user.id, 'owner']]);
  for (const [user, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const) {
    unwrap(await addMember(deps, owner.actor, teamId, { userId: user.user.id, role }));
    roles.set(user.user.id, role);
  }
  if (options.required !== false) {
    unwrap(await updateWorkspace(deps, owner.actor, teamId, { approvalRequired: true }));
  }
  const connection = await seedConnection(deps, teamId, 'twitter');
  const ctx = (user: SeededUser): AccountContext => ({
    accountId: teamId,
    userId: user.user.id,
    role: roles.get(user.user.id) ?? 'member',
    apiKeyId: user.apiKey.id,
  });
  unwrap(
    await createWebhook(deps, team.ctx, {
      url: 'https://hooks.example.com/approval',
      events: [
        'post.created',
        'post.updated',
        'post.approval_requested',
        'post.approved',
        'post.rejected',
      ],
    }),
  );
  return {
    deps,
    teamId,
    owner,
    admin,
    member,
    ctx,
    connectionId: connection.id,
    sent: (event) =>
      [...deps.store.tables.deliveries.values()]
        .filter((delivery) => delivery.event === event)
        .map((delivery) => JSON.parse(delivery.payload)),
    body: (extra = {}) => ({
      content: 'for review',
      social_account_ids: [connection.id],
      ...extra,
    }),
  };
}

/** Whether the post has a publish job waiting in the fake queue. */
export const hasJob = (deps: TestDeps, post: Pick<PostWithTargets, 'id'>): boolean =>
  deps.queue.has('publish', post.id);
