import type { CommentReply, CommentTrack, StoredComment } from '../comments-model.ts';
import type { Media } from '../media-model.ts';
import type { MetricSnapshot, MetricTrack } from '../metrics-model.ts';
import type {
  Account,
  ApiKey,
  DeliveryAttempt,
  Membership,
  OAuthState,
  PlatformApp,
  Post,
  PostTarget,
  SocialAccount,
  User,
  Webhook,
  WebhookDelivery,
} from '../model.ts';
import type { IdempotencyRecord } from '../ports/index.ts';
import type { PostSeries, SeriesOccurrence, SlotSet } from '../series-model.ts';

/** Every table of the in-memory database. Maps keep insertion order, like a heap without ORDER BY. */
export interface MemoryTables {
  users: Map<string, User>;
  accounts: Map<string, Account>;
  /** Keyed `${accountId}/${userId}`. */
  memberships: Map<string, Membership>;
  apiKeys: Map<string, ApiKey>;
  socialAccounts: Map<string, SocialAccount>;
  posts: Map<string, Post>;
  targets: Map<string, PostTarget>;
  webhooks: Map<string, Webhook>;
  deliveries: Map<string, WebhookDelivery>;
  attempts: Map<string, DeliveryAttempt>;
  /** Keyed `${scope}/${key}`. */
  idempotency: Map<string, IdempotencyRecord>;
  /** Keyed by state hash. */
  oauthStates: Map<string, OAuthState>;
  /** Keyed `${platform}/${instance}`. */
  platformApps: Map<string, PlatformApp>;
  /** Token refresh leases by connection id (a column of social_accounts in PostgreSQL). */
  refreshLeases: Map<string, Date>;
  postSeries: Map<string, PostSeries>;
  /** Keyed `${seriesId}/${occurrence ISO}`: the unique (series, occurrence time) of PostgreSQL. */
  seriesOccurrences: Map<string, SeriesOccurrence & { seriesId: string }>;
  /** Keyed by connection id. */
  slotSets: Map<string, SlotSet>;
  media: Map<string, Media>;
  /** Keyed `${postId}/${mediaId}`: which posts use which media. */
  postMedia: Map<string, { postId: string; mediaId: string }>;
  /** Keyed by target id. */
  metricTracks: Map<string, MetricTrack>;
  /** Append-only, in insertion order. */
  metricSnapshots: Map<string, MetricSnapshot>;
  /** Open unpublish requests: post id -> when it opened (posts.unpublish_requested_at). */
  unpublishRequests: Map<string, Date>;
  /** The request each asked target was last asked in (post_targets.unpublish_requested_at). */
  unpublishAsked: Map<string, Date>;
  commentTracks: Map<string, CommentTrack>;
  comments: Map<string, StoredComment>;
  commentReplies: Map<string, CommentReply>;
  /** Look-up holds of `sending` replies by reply id (comment_replies.lookup_until in PostgreSQL). */
  replyLookups: Map<string, Date>;
}

const emptyTables = (): MemoryTables => ({
  users: new Map(),
  accounts: new Map(),
  memberships: new Map(),
  apiKeys: new Map(),
  socialAccounts: new Map(),
  posts: new Map(),
  targets: new Map(),
  webhooks: new Map(),
  deliveries: new Map(),
  attempts: new Map(),
  idempotency: new Map(),
  oauthStates: new Map(),
  platformApps: new Map(),
  refreshLeases: new Map(),
  postSeries: new Map(),
  seriesOccurrences: new Map(),
  slotSets: new Map(),
  media: new Map(),
  postMedia: new Map(),
  metricTracks: new Map(),
  metricSnapshots: new Map(),
  unpublishRequests: new Map(),
  unpublishAsked: new Map(),
  commentTracks: new Map(),
  comments: new Map(),
  commentReplies: new Map(),
  replyLookups: new Map(),
});

/** Stored values are never shared with callers: in and out, everything is copied. */
export const copy = <T>(value: T): T => structuredClone(value);

/** Thrown by the fakes where a database would raise a constraint violation. */
export class ConstraintError extends Error {
  override name = 'ConstraintError';
}

function queueFault(faults: Map<string, Error[]>, method: string, error: Error): void {
  const queue = faults.get(method) ?? [];
  queue.push(error);
  faults.set(method, queue);
}

function throwQueued(faults: Map<string, Error[]>, method: string): void {
  const error = faults.get(method)?.shift();
  if (error) throw error;
}

/**
 * The state behind the in-memory repositories, plus fault injection: `failNext('posts.insert')`
 * makes the next call of that repository method throw, to exercise error paths;
 * `loseNextAnswer` lets the next call take effect and then throws, as a connection lost after
 * the commit and before its answer does.
 */
export class MemoryStore {
  tables: MemoryTables = emptyTables();
  readonly #faults = new Map<string, Error[]>();
  readonly #lostAnswers = new Map<string, Error[]>();

  snapshot(): MemoryTables {
    return copy(this.tables);
  }

  restore(snapshot: MemoryTables): void {
    this.tables = snapshot;
  }

  failNext(method: string, error: Error = new Error(`injected failure of ${method}`)): void {
    queueFault(this.#faults, method, error);
  }

  loseNextAnswer(
    method: string,
    error: Error = new Error(`connection lost after ${method}`),
  ): void {
    queueFault(this.#lostAnswers, method, error);
  }

  /** Throws the injected error for `method`, if one is queued. */
  checkFault(method: string): void {
    throwQueued(this.#faults, method);
  }

  /** Throws the error queued by `loseNextAnswer` for `method`, once it has taken effect. */
  checkLostAnswer(method: string): void {
    throwQueued(this.#lostAnswers, method);
  }

  insertUnique<T>(table: Map<string, T>, key: string, value: T, what: string): void {
    if (table.has(key)) throw new ConstraintError(`duplicate ${what}: ${key}`);
    table.set(key, copy(value));
  }
}
