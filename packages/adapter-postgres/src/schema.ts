/**
 * Kysely table types: the database as the repositories see it (snake_case columns).
 * Must match src/migrations/. Timestamps are `timestamptz` and come back as Date on both
 * backends; json(b) values are written as JSON text (`::jsonb`) and read back parsed.
 */

import type {
  AccountKind,
  CommentsState,
  ConnectionStatus,
  DeliveryStatus,
  MetricsState,
  Platform,
  PlatformData,
  PlatformOptions,
  PostSeriesStatus,
  PostStatus,
  ReplyState,
  ResumeState,
  Role,
  SeriesTemplate,
  Slot,
  TargetStatus,
  TargetUnpublish,
  ThreadPart,
  WebhookEvent,
} from '@social-publisher/domain';
import type { ColumnType, Generated } from 'kysely';

/** timestamptz: read as Date, written as Date. */
export type Timestamp = ColumnType<Date, Date, Date>;
/** jsonb: read parsed, written as JSON text. */
export type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  email: string | null;
  external_subject: string | null;
  created_at: Timestamp;
}

export interface AccountsTable {
  id: string;
  kind: AccountKind;
  name: string;
  /** A team's members' posts wait for approval (0015). */
  approval_required: Generated<boolean>;
  created_at: Timestamp;
}

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: Role;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  created_by: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | null, Date | null>;
}

export interface SocialAccountsTable {
  id: string;
  account_id: string;
  platform: Platform;
  external_id: string;
  display_name: string | null;
  access_token_ciphertext: string;
  refresh_token_ciphertext: string | null;
  token_expires_at: ColumnType<Date | null, Date | null, Date | null>;
  scopes: Generated<string[]>;
  status: ConnectionStatus;
  sandbox: Generated<boolean>;
  /** Held by the worker renewing this connection's token (0003). */
  refresh_lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The connector's non-secret facts about the connection (0010). */
  platform_data: ColumnType<PlatformData | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Apps registered per platform instance (0010). */
export interface PlatformAppsTable {
  id: string;
  platform: Platform;
  instance: string;
  client_id: string;
  client_secret_ciphertext: string;
  created_at: Timestamp;
}

export interface OAuthStatesTable {
  id: string;
  state_hash: string;
  account_id: string;
  user_id: string;
  platform: Platform;
  code_verifier_ciphertext: string;
  browser_hash: string | null;
  return_url: string | null;
  /** What the connector prepared from the connect fields (0010). */
  connect_params: ColumnType<PlatformData | null, string | null | undefined, string | null>;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface PostsTable {
  id: string;
  account_id: string;
  created_by: string;
  content: string;
  media_urls: string[];
  platform_options: Json<PlatformOptions>;
  thread: Json<ThreadPart[]>;
  first_comment: string | null;
  scheduled_at: ColumnType<Date | null, Date | null, Date | null>;
  status: PostStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The repeating series of an occurrence (post_series); null for a one-off post. */
  series_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the post was rejected; only on a `rejected` post (0015). */
  rejection_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The open unpublish request (0016); NULL: none. */
  unpublish_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface PostTargetsTable {
  id: string;
  post_id: string;
  /** Index of the target in the post's list, for a stable order. */
  position: number;
  platform: Platform;
  /** The connection used; kept after the connection is deleted (no foreign key, see README). */
  social_account_id: string;
  sandbox: Generated<boolean>;
  status: TargetStatus;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  retryable: boolean | null;
  platform_post_id: string | null;
  platform_url: string | null;
  thread_post_ids: Json<string[]>;
  first_comment_id: string | null;
  resume_state: ColumnType<ResumeState | null, string | null, string | null>;
  lease_expires_at: ColumnType<Date | null, Date | null, Date | null>;
  published_at: ColumnType<Date | null, Date | null, Date | null>;
  /** `unsupported`: asked to come down, its platform has no delete (migration 0014). */
  unpublish: Generated<TargetUnpublish | null>;
  /** The unpublish request the target was last asked in. */
  unpublish_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: Timestamp;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  created_by: string;
  url: string;
  events: WebhookEvent[];
  /** NULL: every event of the account; else only events about these connections. */
  social_account_ids: string[] | null;
  active: boolean;
  /** Why the service turned it off (auto-disable, 410 Gone); NULL when it did not. */
  disabled_reason: string | null;
  /** The first failed attempt after a delivered one; NULL when the last one was delivered. */
  failing_since: ColumnType<Date | null, Date | null, Date | null>;
  secret: string;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  account_id: string;
  /** NULL exactly for events about a connection (`social_account.*`). */
  post_id: string | null;
  event: WebhookEvent;
  /** The exact bytes that are signed and sent (TEXT, never re-serialised). */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: ColumnType<Date | null, Date | null, Date | null>;
  delivered_at: ColumnType<Date | null, Date | null, Date | null>;
  created_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempt_no: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  accounts: AccountsTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  social_accounts: SocialAccountsTable;
  posts: PostsTable;
  post_targets: PostTargetsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  oauth_states: OAuthStatesTable;
  platform_apps: PlatformAppsTable;
  post_series: PostSeriesTable;
  post_series_occurrences: PostSeriesOccurrencesTable;
  social_account_slots: SocialAccountSlotsTable;
  media: MediaTable;
  post_media: PostMediaTable;
  metric_tracks: MetricTracksTable;
  metric_snapshots: MetricSnapshotsTable;
  comment_tracks: CommentTracksTable;
  comments: CommentsTable;
  comment_replies: CommentRepliesTable;
}

export interface MediaTable {
  id: string;
  account_id: string;
  created_by: string;
  name: string;
  content_type: string;
  /** bigint: read as a number (see int8.ts). */
  size: ColumnType<number, number, number>;
  sha256: string;
  filename: string | null;
  created_at: Timestamp;
  expires_at: ColumnType<Date | null, Date | null, Date | null>;
}

export interface PostMediaTable {
  post_id: string;
  media_id: string;
}

export interface PostSeriesTable {
  id: string;
  account_id: string;
  created_by: string;
  rrule: string;
  timezone: string;
  count: number | null;
  until: ColumnType<Date | null, Date | null, Date | null>;
  first_at: Timestamp;
  template: Json<SeriesTemplate>;
  status: PostSeriesStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PostSeriesOccurrencesTable {
  series_id: string;
  occurrence_at: Timestamp;
  post_id: string;
}

export interface SocialAccountSlotsTable {
  social_account_id: string;
  timezone: string;
  slots: Json<Slot[]>;
  updated_at: Timestamp;
}

/**
 * The numbers a read gives, one column each (0011_metrics): bigint, read as numbers (int8.ts),
 * NULL when the platform does not report it.
 */
export interface MetricColumns {
  views: number | null;
  impressions: number | null;
  reach: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  quotes: number | null;
  saves: number | null;
  clicks: number | null;
}

/** What every followed published target's row holds (metric_tracks, comment_tracks). */
export interface ReadTrackColumns<State> {
  target_id: string;
  post_id: string;
  account_id: string;
  social_account_id: string;
  platform: Platform;
  platform_post_id: string;
  published_at: Timestamp;
  sandbox: boolean;
  state: State;
  step: number;
  due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The latest numbers of one published target, and when to read them next. */
export interface MetricTracksTable extends MetricColumns, ReadTrackColumns<MetricsState> {
  taken_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** One read of one target's numbers, append-only. */
export interface MetricSnapshotsTable extends MetricColumns {
  id: string;
  target_id: string;
  taken_at: Timestamp;
  raw: Json<Record<string, unknown>>;
  sandbox: boolean;
}

/** When a published target's comments are read next (0017_comments). */
export interface CommentTracksTable extends ReadTrackColumns<CommentsState> {
  read_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A comment under a published target, once per (target_id, platform_comment_id). */
export interface CommentsTable {
  id: string;
  account_id: string;
  post_id: string;
  target_id: string;
  social_account_id: string;
  platform: Platform;
  platform_comment_id: string;
  parent_platform_id: string | null;
  author_id: string;
  author_name: string | null;
  author_handle: string | null;
  text: string;
  created_at: Timestamp;
  hidden: boolean;
  mine: boolean;
  read: boolean;
  received_at: Timestamp;
  sandbox: boolean;
}

/** A reply asked for, recorded before it is sent (its Idempotency-Key unique per account). */
export interface CommentRepliesTable {
  id: string;
  account_id: string;
  comment_id: string;
  idempotency_key: string;
  text: string;
  state: ReplyState;
  intent_at: Timestamp;
  platform_comment_id: string | null;
  reply_comment_id: string | null;
  error: string | null;
  /** A look-up of the `sending` reply holds it until then (0019_reply_lookups). */
  lookup_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
