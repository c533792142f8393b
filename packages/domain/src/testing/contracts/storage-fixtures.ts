/**
 * Shared helpers of the storage contract suites (storage-*.ts beside this file).
 *
 * A suite calls `setup` once (beforeAll) and runs all its tests against what it returns, so
 * a database backend may hand every suite the same database: tests never rely on an empty
 * store. They create their own rows with fresh ids, and the few global queries (countUsers,
 * findDuePosts, findExpiredLeases, findDue, deleteExpired) are checked with times in 1971 that
 * no other test uses (everything else happens in 2030 and later), or as deltas.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type {
  Account,
  ApiKey,
  DeliveryAttempt,
  Platform,
  Post,
  PostTarget,
  PostWithTargets,
  SocialAccount,
  User,
  Webhook,
  WebhookDelivery,
} from '../../model.ts';
import type { Repositories, UnitOfWork } from '../../ports/storage.ts';
import type { StorageTesting } from '../storage-testing.ts';

export interface StorageUnderTest {
  repos: Repositories;
  uow: UnitOfWork;
  /** The test-only operations the suites use to put a row in a known state. */
  testing: StorageTesting;
  teardown(): Promise<void>;
}

/** Returns the storage to test; called once per suite. */
export type StorageSetup = () => Promise<StorageUnderTest>;

/** Registers beforeAll/afterAll for the suite and returns a getter for the storage. */
export function useStorage(setup: StorageSetup): () => StorageUnderTest {
  let subject: StorageUnderTest | undefined;
  beforeAll(async () => {
    subject = await setup();
  });
  afterAll(async () => {
    await subject?.teardown();
    subject = undefined;
  });
  return () => {
    if (!subject) throw new Error('storage setup did not run');
    return subject;
  };
}

export const newId = (): string => randomUUID();

let clockTick = 0;
/** A fresh, strictly increasing time in 2030 (ms resolution, survives timestamptz). */
export function nextTime(): Date {
  clockTick += 1;
  return new Date(Date.UTC(2030, 0, 1) + clockTick * 1_000);
}
/** A time in 1971 (`seconds` after its start): reserved for global queries. */
export const ancient = (seconds: number): Date => new Date(Date.UTC(1971, 0, 1) + seconds * 1_000);
export const plus = (date: Date, ms: number): Date => new Date(date.getTime() + ms);

export const sha256Hex = (value: string): string =>
  createHash('sha256').update(value, 'utf8').digest('hex');

export function makeUser(overrides: Partial<User> = {}): User {
  const id = overrides.id ?? newId();
  return {
    id,
    email: `user-${id}@example.test`,
    externalSubject: null,
    createdAt: nextTime(),
    ...overrides,
  };
}

export function makeAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: newId(),
    kind: 'team',
    name: 'Team',
    approvalRequired: false,
    createdAt: nextTime(),
    ...overrides,
  };
}

/** A user with their personal account (same id), stored. */
export async function seedUser(repos: Repositories, overrides: Partial<User> = {}): Promise<User> {
  const user = makeUser(overrides);
  await repos.accounts.createUser(user);
  await repos.accounts.createAccount({
    id: user.id,
    kind: 'personal',
    name: user.email ?? 'personal',
    approvalRequired: false,
    createdAt: user.createdAt,
  });
  return user;
}

/** A team account owned by `ownerId`, stored. */
export async function seedTeam(
  repos: Repositories,
  ownerId: string,
  overrides: Partial<Account> = {},
): Promise<Account> {
  const team = makeAccount({ kind: 'team', ...overrides });
  await repos.accounts.createAccount(team);
  await repos.accounts.addMembership({
    accountId: team.id,
    userId: ownerId,
    role: 'owner',
    createdAt: team.createdAt,
  });
  return team;
}

export function makeApiKey(
  accountId: string,
  createdBy: string,
  overrides: Partial<ApiKey> = {},
): ApiKey {
  const raw = `sp_${randomBytes(30).toString('base64url').slice(0, 40)}`;
  return {
    id: newId(),
    accountId,
    createdBy,
    name: 'key',
    keyHash: sha256Hex(raw),
    keyPrefix: raw.slice(0, 11),
    createdAt: nextTime(),
    lastUsedAt: null,
    ...overrides,
  };
}

export function makeSocialAccount(
  accountId: string,
  overrides: Partial<SocialAccount> = {},
): SocialAccount {
  const createdAt = overrides.createdAt ?? nextTime();
  return {
    id: newId(),
    accountId,
    platform: 'tiktok',
    externalId: `ext-${randomBytes(4).toString('hex')}`,
    displayName: 'Display',
    accessTokenCiphertext: `v1.${randomBytes(12).toString('base64url')}.access`,
    refreshTokenCiphertext: `v1.${randomBytes(12).toString('base64url')}.refresh`,
    tokenExpiresAt: plus(createdAt, 3_600_000),
    scopes: ['video.publish'],
    status: 'active',
    sandbox: false,
    platformData: null,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

export function makeTarget(
  postId: string,
  socialAccountId: string,
  overrides: Partial<PostTarget> = {},
): PostTarget {
  return {
    id: newId(),
    postId,
    platform: 'tiktok',
    socialAccountId,
    sandbox: false,
    status: 'pending',
    attempts: 0,
    errorCode: null,
    errorMessage: null,
    retryable: null,
    platformPostId: null,
    platformUrl: null,
    threadPostIds: [],
    firstCommentId: null,
    resumeState: null,
    leaseExpiresAt: null,
    publishedAt: null,
    unpublish: null,
    updatedAt: overrides.updatedAt ?? nextTime(),
    ...overrides,
  };
}

/**
 * A post of `createdBy` in `accountId` with one pending target per entry of `platforms`
 * (connection ids are fresh unless `socialAccountIds` gives them).
 */
export function makePost(
  accountId: string,
  createdBy: string,
  options: {
    post?: Partial<Post>;
    platforms?: Platform[];
    socialAccountIds?: string[];
    target?: Partial<PostTarget>;
  } = {},
): PostWithTargets {
  const createdAt = options.post?.createdAt ?? nextTime();
  const id = options.post?.id ?? newId();
  const platforms = options.platforms ?? ['tiktok'];
  return {
    id,
    accountId,
    createdBy,
    content: 'hello',
    mediaUrls: ['https://cdn.example.test/video.mp4'],
    platformOptions: { tiktok: { tiktokPrivacy: 'SELF_ONLY', tiktokIsDraft: false } },
    thread: [],
    firstComment: null,
    scheduledAt: null,
    status: 'queued',
    createdAt,
    updatedAt: createdAt,
    rejectionReason: null,
    seriesId: null,
    ...options.post,
    targets: platforms.map((platform, index) =>
      makeTarget(id, options.socialAccountIds?.[index] ?? newId(), {
        platform,
        updatedAt: createdAt,
        ...options.target,
      }),
    ),
  };
}

export function makeWebhook(
  accountId: string,
  createdBy: string,
  overrides: Partial<Webhook> = {},
): Webhook {
  return {
    id: newId(),
    accountId,
    createdBy,
    url: 'https://hooks.example.test/receive',
    events: ['post.published', 'post.failed', 'post.partial'],
    socialAccountIds: null,
    active: true,
    disabledReason: null,
    failingSince: null,
    secretCiphertext: `v2.${randomBytes(6).toString('base64url')}.sealed-secret`,
    createdAt: nextTime(),
    ...overrides,
  };
}

export function makeDelivery(
  webhook: Webhook,
  postId: string,
  overrides: Partial<WebhookDelivery> = {},
): WebhookDelivery {
  const createdAt = overrides.createdAt ?? nextTime();
  return {
    id: newId(),
    webhookId: webhook.id,
    accountId: webhook.accountId,
    postId,
    event: 'post.published',
    payload: JSON.stringify({
      event: 'post.published',
      account_id: webhook.accountId,
      post_id: postId,
      timestamp: createdAt.toISOString(),
      data: { published: 1, failed: 0, total: 1 },
    }),
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: createdAt,
    deliveredAt: null,
    createdAt,
    ...overrides,
  };
}

export function makeAttempt(
  deliveryId: string,
  attemptNo: number,
  overrides: Partial<DeliveryAttempt> = {},
): DeliveryAttempt {
  return {
    id: newId(),
    deliveryId,
    attemptNo,
    statusCode: 500,
    error: 'HTTP 500',
    durationMs: 12,
    createdAt: nextTime(),
    ...overrides,
  };
}

/** Sorts by id, for comparing lists whose order the port does not define. */
export const byId = <T extends { id: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A post with its targets and the user/account rows it needs, stored. */
export async function seedPost(
  repos: Repositories,
  options: Parameters<typeof makePost>[2] & { userId?: string; accountId?: string } = {},
): Promise<PostWithTargets> {
  let userId = options.userId;
  if (userId === undefined) userId = (await seedUser(repos)).id;
  const post = makePost(options.accountId ?? userId, userId, options);
  await repos.posts.insert(post);
  return post;
}
