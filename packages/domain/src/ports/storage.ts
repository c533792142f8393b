import type {
  Account,
  ApiKey,
  ConnectionStatus,
  DeliveryAttempt,
  DeliveryStatus,
  DeliveryWithAttempts,
  Membership,
  Platform,
  Post,
  PostStatus,
  PostTarget,
  PostWithTargets,
  ResumeState,
  Role,
  SocialAccount,
  User,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
} from '../model.ts';

/**
 * Storage ports. Every method is one statement's worth of work (or a small fixed number);
 * business decisions live in use cases. Conditional updates return whether they applied, so
 * concurrent workers can race safely.
 */

export interface AccountRepository {
  createUser(user: User): Promise<void>;
  findUserById(id: string): Promise<User | null>;
  findUserByEmail(email: string): Promise<User | null>;
  findUserBySubject(subject: string): Promise<User | null>;
  createAccount(account: Account): Promise<void>;
  findAccountById(id: string): Promise<Account | null>;
  addMembership(membership: Membership): Promise<void>;
  /** Inserts or changes the role of an existing membership. */
  upsertMembership(membership: Membership): Promise<void>;
  removeMembership(accountId: string, userId: string): Promise<boolean>;
  findMembership(accountId: string, userId: string): Promise<Membership | null>;
  /** Every membership of a team account, oldest first (owner checks, member listings). */
  listMemberships(accountId: string): Promise<Membership[]>;
  /** Team accounts the user belongs to, with the user's role. */
  listTeamsOfUser(userId: string): Promise<Array<{ account: Account; role: Role }>>;
  countUsers(): Promise<number>;
}

export interface ApiKeyRepository {
  insert(key: ApiKey): Promise<void>;
  findById(id: string): Promise<ApiKey | null>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  listByAccount(accountId: string): Promise<ApiKey[]>;
  countByAccount(accountId: string): Promise<number>;
  delete(id: string): Promise<boolean>;
  touchLastUsed(id: string, at: Date): Promise<void>;
}

export interface SocialAccountRepository {
  insert(connection: SocialAccount): Promise<void>;
  findById(id: string): Promise<SocialAccount | null>;
  /** The connections with these ids that exist, in no particular order (one query). */
  findByIds(ids: readonly string[]): Promise<SocialAccount[]>;
  listByAccount(accountId: string): Promise<SocialAccount[]>;
  /** The account's most recently created active connection for the platform. */
  findActiveByPlatform(accountId: string, platform: Platform): Promise<SocialAccount | null>;
  updateTokens(
    id: string,
    tokens: {
      accessTokenCiphertext: string;
      refreshTokenCiphertext: string | null;
      tokenExpiresAt: Date | null;
    },
    at: Date,
  ): Promise<void>;
  setStatus(id: string, status: ConnectionStatus, at: Date): Promise<void>;
  delete(id: string): Promise<boolean>;
}

/** Outcome of one target as recorded by the publisher. */
export type TargetCompletion =
  | { status: 'published'; platformPostId: string; platformUrl: string | null; at: Date }
  | {
      status: 'failed';
      errorCode: string;
      errorMessage: string;
      retryable: boolean;
      at: Date;
    };

/** A post's conditional status change, as `PostRepository.transitionStatus` makes it. */
export interface PostTransition {
  postId: string;
  from: readonly PostStatus[];
  to: PostStatus;
  at: Date;
}

/** A target claimed by `claimTargets`; `takenOver` when it was `publishing` under a run-out lease. */
export interface TargetClaim {
  target: PostTarget;
  takenOver: boolean;
}

/** One page of `PostRepository.listByCreator`: `before` is the last post of the previous page. */
export interface PostPage {
  limit: number;
  before?: { createdAt: Date; id: string };
}

export interface PostRepository {
  /**
   * Inserts the post and its targets, atomically by itself (all or nothing, one statement), so
   * callers need no unit of work for it.
   */
  insert(post: PostWithTargets): Promise<void>;
  /** The post with its targets in their stored order (one query). */
  findById(id: string): Promise<PostWithTargets | null>;
  /**
   * Posts created by the user (optionally only in one account), newest first (created_at desc,
   * id desc), with targets. With `page`: at most `limit` posts, only those strictly after
   * `before` in that order (keyset pagination).
   */
  listByCreator(createdBy: string, accountId?: string, page?: PostPage): Promise<PostWithTargets[]>;
  /** Sets the status only when the current status is one of `from`. Returns whether it applied. */
  transitionStatus(
    id: string,
    from: readonly PostStatus[],
    to: PostStatus,
    at: Date,
  ): Promise<boolean>;
  /**
   * Claims a target: `pending` -> `publishing` (attempts + 1, lease set) only when still pending;
   * or, when `allowExpiredLease`, also a `publishing` target whose lease has run out.
   * Returns the claimed target, or null when another worker holds it or it is done.
   */
  claimTarget(
    targetId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<PostTarget | null>;
  /**
   * `claimTarget` for every claimable target of the post at once, in one statement: each
   * target is claimed by exactly one of any number of concurrent callers. Returns the claimed
   * targets in their stored order.
   */
  claimTargets(
    postId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<TargetClaim[]>;
  /** Extends the lease of a target this worker holds; false if it is no longer `publishing`. */
  renewLease(targetId: string, leaseExpiresAt: Date, at: Date): Promise<boolean>;
  /** Stores platform intermediate ids (and extends the lease) before the publisher waits. */
  saveResumeState(
    targetId: string,
    state: ResumeState,
    leaseExpiresAt: Date,
    at: Date,
  ): Promise<void>;
  /** Hands a claimed target back to `pending` (transient failure, shutdown). */
  releaseTarget(
    targetId: string,
    error: { errorCode: string; errorMessage: string } | null,
    at: Date,
  ): Promise<void>;
  /** Records a terminal result of a `publishing` target. Returns false if it was not publishing. */
  completeTarget(targetId: string, completion: TargetCompletion): Promise<boolean>;
  /** Marks every `pending` target of the post `cancelled`. */
  cancelPendingTargets(postId: string, at: Date): Promise<void>;
  /**
   * Posts that should be (or soon be) running: status `queued`, `scheduled` or `publishing`
   * with scheduledAt null or <= `until`. Ordered by coalesce(scheduledAt, createdAt), at most
   * `limit`. The reconciler passes now + a look-ahead so the in-process queue can be rebuilt
   * with delayed jobs after a restart.
   */
  findDuePosts(until: Date, limit: number): Promise<Post[]>;
  /** Targets in `publishing` whose lease expired before `now`. */
  findExpiredLeases(now: Date, limit: number): Promise<PostTarget[]>;
}

export interface WebhookRepository {
  insert(webhook: Webhook): Promise<void>;
  findById(id: string): Promise<Webhook | null>;
  listByAccount(accountId: string): Promise<Webhook[]>;
  listActiveForEvent(accountId: string, event: WebhookEvent): Promise<Webhook[]>;
  setActive(id: string, active: boolean): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

export interface DeliveryRepository {
  insertMany(deliveries: WebhookDelivery[]): Promise<void>;
  /**
   * With `onlyIf`, the post's conditional status transition and the inserts are one atomic
   * statement: the deliveries are stored only when the transition applied. Returns whether it
   * applied (with no deliveries it is just the transition).
   */
  insertMany(deliveries: WebhookDelivery[], onlyIf: PostTransition): Promise<boolean>;
  findById(id: string): Promise<WebhookDelivery | null>;
  /** The delivery with its webhook (one query); null when either is gone. */
  findWithWebhook(id: string): Promise<{ delivery: WebhookDelivery; webhook: Webhook } | null>;
  /** Deliveries of one webhook, newest first, each with its attempts (oldest attempt first). */
  listByWebhook(webhookId: string, limit: number): Promise<DeliveryWithAttempts[]>;
  /** Appends an attempt and updates the delivery's status/counters in the same call. */
  recordAttempt(
    attempt: DeliveryAttempt,
    update: {
      status: DeliveryStatus;
      nextAttemptAt: Date | null;
      deliveredAt: Date | null;
    },
  ): Promise<void>;
  /**
   * Puts a delivery back to `pending` for another round of attempts (redeliver): `attempts`
   * restarts at 0 so the retry schedule applies again, `deliveredAt` is cleared; earlier
   * attempt rows and `lastStatusCode`/`lastError` are kept as history.
   */
  reset(id: string, nextAttemptAt: Date): Promise<void>;
  /** Pending deliveries whose next attempt is due (for the reconciler). */
  findDue(now: Date, limit: number): Promise<WebhookDelivery[]>;
}

/** Stored replies of the HTTP layer for `Idempotency-Key`. */
export interface IdempotencyRecord {
  /** Credential/account scope + route + key. */
  scope: string;
  key: string;
  requestHash: string;
  statusCode: number;
  responseBody: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface IdempotencyRepository {
  find(scope: string, key: string, now: Date): Promise<IdempotencyRecord | null>;
  /** Inserts unless a live record exists; returns the record that is now stored. */
  putIfAbsent(record: IdempotencyRecord): Promise<IdempotencyRecord>;
  /**
   * Deletes the record of (scope, key) only while it still holds `requestHash` and
   * `responseBody` (so a holder removes its own record, e.g. an in-progress lock, and never
   * another's). Returns whether one was deleted.
   */
  deleteIfOwned(
    scope: string,
    key: string,
    requestHash: string,
    responseBody: string,
  ): Promise<boolean>;
  deleteExpired(now: Date): Promise<number>;
}

export interface Repositories {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  socialAccounts: SocialAccountRepository;
  posts: PostRepository;
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  idempotency: IdempotencyRepository;
}

/** Runs work inside one transaction; the repositories passed in are bound to it. */
export interface UnitOfWork {
  run<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
}

/** Liveness of a dependency, for GET /health. */
export interface HealthCheck {
  ping(): Promise<boolean>;
}
