/**
 * Entities and statuses (docs/api.md#statuses). Plain data: adapters persist them, use cases
 * decide how they change. Times are Date objects; ids are UUID strings (v7 from IdGenerator).
 */

/**
 * A platform's name, e.g. the `name` of a platform descriptor. The names a deployment serves are not fixed
 * here: each platform is described once in its own folder of adapter-platforms, and the
 * domain learns the list through the PlatformCatalog port (`deps.platforms.names`).
 */
export type Platform = string;

// ---------------------------------------------------------------- accounts

/** A user. Their personal account has the same id as the user. */
export interface User {
  id: string;
  email: string | null;
  /** `sub` of a user JWT, when the user first arrived through one. */
  externalSubject: string | null;
  createdAt: Date;
}

export type AccountKind = 'personal' | 'team';

/** The owner of keys, connections, posts and webhooks: a user's personal account or a team (workspace). */
export interface Account {
  id: string;
  kind: AccountKind;
  name: string;
  /**
   * A team's setting: its members' posts wait for an owner's or an admin's approval
   * (`pending_approval`) before they are queued. Always false on a personal account.
   */
  approvalRequired: boolean;
  createdAt: Date;
}

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface Membership {
  accountId: string;
  userId: string;
  role: Role;
  createdAt: Date;
}

// ---------------------------------------------------------------- API keys

export interface ApiKey {
  id: string;
  accountId: string;
  createdBy: string;
  name: string;
  /** SHA-256 hex of the raw key; the raw key is never stored. */
  keyHash: string;
  /** First characters of the raw key, for display (e.g. `sp_AbC12345`). */
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

// ---------------------------------------------------------------- social accounts

export const CONNECTION_STATUSES = ['active', 'expired', 'revoked'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** A connected social account. Tokens are held only as TokenCipher ciphertext. */
export interface SocialAccount {
  id: string;
  accountId: string;
  platform: Platform;
  externalId: string;
  displayName: string | null;
  accessTokenCiphertext: string;
  refreshTokenCiphertext: string | null;
  tokenExpiresAt: Date | null;
  /** The scopes granted on the platform (empty when unknown, e.g. a brought token). */
  scopes: string[];
  status: ConnectionStatus;
  /** A sandbox connection never calls its platform (docs/connect.md#sandbox-connections). */
  sandbox: boolean;
  /**
   * Non-secret facts the platform's connector learnt at connect time and its publisher and
   * rules need (a Mastodon connection's instance and that instance's post length). Absent or
   * null: none (every other platform, a brought token, a sandbox connection).
   */
  platformData?: PlatformData | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A platform's own non-secret values about a connection or a connect flow: flat, JSON-safe. */
export type PlatformData = Readonly<Record<string, string | number | boolean>>;

/**
 * An app this service registered on one instance of a platform whose every server is its own
 * OAuth provider (Mastodon): registered on the first connect to that instance, reused after.
 */
export interface PlatformApp {
  id: string;
  platform: Platform;
  /** The instance's origin (`https://mastodon.example`), as the connector normalised it. */
  instance: string;
  clientId: string;
  /** Encrypted like tokens (bound to this row's id). */
  clientSecretCiphertext: string;
  createdAt: Date;
}

/** `platform_options.<platform>.sandbox_outcome`: how a sandbox target ends. */
export const SANDBOX_OUTCOMES = ['published', 'failed', 'transient'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/**
 * A connect flow in progress: what the single-use OAuth `state` stands for. Only the state's
 * SHA-256 is stored; the PKCE verifier is encrypted like tokens.
 */
export interface OAuthState {
  id: string;
  stateHash: string;
  accountId: string;
  userId: string;
  platform: Platform;
  codeVerifierCiphertext: string;
  /**
   * SHA-256 of the nonce in the cookie of the browser that opened the consent (our authorize
   * route); null until one has. The callback accepts the state only from that browser.
   */
  browserHash: string | null;
  /** Validated against CONNECT_RETURN_ORIGINS when the flow started. */
  returnUrl: string | null;
  /**
   * What the platform's connector prepared from the extra connect fields (the instance and the
   * app's client id), handed to the consent URL and the code exchange. Absent or null: none.
   */
  connectParams?: PlatformData | null;
  expiresAt: Date;
  createdAt: Date;
}

// ---------------------------------------------------------------- posts

export const POST_STATUSES = [
  'scheduled',
  'queued',
  'publishing',
  'published',
  'partial',
  'failed',
  'cancelled',
  // Approval (docs/api.md#approval): a member's post held for an owner or an admin.
  'pending_approval',
  'rejected',
] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
export const TERMINAL_POST_STATUSES: readonly PostStatus[] = [
  'published',
  'partial',
  'failed',
  'cancelled',
  'rejected',
];
/** The statuses in which a post may still be edited (or cancelled): no worker has started it. */
export const EDITABLE_POST_STATUSES: readonly PostStatus[] = [
  'scheduled',
  'queued',
  'pending_approval',
];
/** The statuses a publish run starts from (`PostRepository.startPublish`). */
export const STARTABLE_POST_STATUSES: readonly PostStatus[] = ['scheduled', 'queued', 'publishing'];

export const TARGET_STATUSES = [
  'pending',
  'publishing',
  'published',
  'failed',
  'cancelled',
  // Taking a published target down (POST /posts/:id/unpublish): asked, done, given up.
  'removing',
  'removed',
  'remove_failed',
] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];
export const TERMINAL_TARGET_STATUSES: readonly TargetStatus[] = [
  'published',
  'failed',
  'cancelled',
  'removed',
  'remove_failed',
];
/**
 * The statuses of a target whose post is out on its platform and may be asked to come down
 * (`remove_failed`: asked again). A `removing` one is already on its way: asking again is a no-op.
 */
export const UNPUBLISHABLE_TARGET_STATUSES: readonly TargetStatus[] = [
  'published',
  'remove_failed',
];
/**
 * What an unpublish request said of a target beside its status: `unsupported` when its
 * platform offers no delete (the target stays `published`).
 */
export type TargetUnpublish = 'unsupported';

/** Per-platform options as sent by the client, keyed by platform name. Validated by rules. */
export type PlatformOptions = Partial<Record<Platform, Record<string, unknown>>>;

/** One follow-up of a thread. */
export interface ThreadPart {
  content: string;
  mediaUrls: string[];
}

export interface Post {
  id: string;
  accountId: string;
  createdBy: string;
  content: string;
  mediaUrls: string[];
  platformOptions: PlatformOptions;
  /** Follow-ups published after the main post, each a reply to the one before. */
  thread: ThreadPart[];
  /** A comment on the published post (the first reply where the platform has no comments). */
  firstComment: string | null;
  /** null for an immediate post. */
  scheduledAt: Date | null;
  status: PostStatus;
  createdAt: Date;
  updatedAt: Date;
  /** The repeating series this post is an occurrence of; null for a one-off post. */
  seriesId: string | null;
  /** Why an owner or an admin rejected it (status `rejected`); null otherwise. */
  rejectionReason: string | null;
}

/**
 * Intermediate platform ids stored before waiting on the platform, so that a retry resumes
 * instead of posting again (a publish id, a container id, an upload session URL...).
 */
export type ResumeState = Record<string, unknown>;

/**
 * Recorded right before a platform call that creates something and cannot be repeated safely:
 * which step, and when. Until the answer is recorded, a resumed target must look for the
 * result instead of sending again (or end `outcome_unknown`).
 */
export interface PublishIntent {
  step: string;
  at: Date;
}

export interface PostTarget {
  id: string;
  postId: string;
  platform: Platform;
  socialAccountId: string;
  /** Copied from the connection at creation: a sandbox target never calls its platform. */
  sandbox: boolean;
  status: TargetStatus;
  attempts: number;
  errorCode: string | null;
  errorMessage: string | null;
  retryable: boolean | null;
  platformPostId: string | null;
  platformUrl: string | null;
  /** The follow-ups published so far, in order (kept when a later one failed). */
  threadPostIds: string[];
  firstCommentId: string | null;
  resumeState: ResumeState | null;
  /**
   * While `publishing` (or `removing` and claimed): the claim is valid until then; past it the
   * reconciler may resume. A `removing` target without one waits for its job to claim it.
   */
  leaseExpiresAt: Date | null;
  publishedAt: Date | null;
  /** Set when it was asked to be taken down and its platform has no delete; null otherwise. */
  unpublish: TargetUnpublish | null;
  updatedAt: Date;
}

export interface PostWithTargets extends Post {
  targets: PostTarget[];
}

// ---------------------------------------------------------------- webhooks

export * from './webhook-model.ts';

// ---------------------------------------------------------------- callers

/** Who is calling, as established by authentication. */
export interface Actor {
  userId: string;
  /** Set when the credential is an API key. */
  apiKeyId: string | null;
  /** The account the API key belongs to (personal = userId, or a team). null for JWT callers. */
  keyAccountId: string | null;
  /**
   * A team key's creator's role in its team, read from storage when the key was authenticated
   * (this request). Absent on other credentials, and then asked for when needed.
   */
  keyRole?: Role;
}

/** The account a request acts in, after applying `workspace_id` and membership rules. */
export interface AccountContext {
  accountId: string;
  userId: string;
  /** The caller's role in the account; personal accounts are `owner`. */
  role: Role;
  apiKeyId: string | null;
}
