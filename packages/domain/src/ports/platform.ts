import type { Problem } from '../errors.ts';
import type {
  Platform,
  PlatformData,
  PlatformOptions,
  Post,
  PostTarget,
  PublishIntent,
  ResumeState,
  ThreadPart,
} from '../model.ts';
import type { PlatformCommentsClient } from './comments-client.ts';
import type { PublishConnection } from './connection.ts';
import type { PlatformCredentials } from './credentials.ts';
import type { PlatformMetricsReader } from './metrics-reader.ts';
import type { PlatformOAuth } from './oauth.ts';
import type { PlatformRemover } from './remover.ts';

export interface RefreshedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
}

export interface PublishRequest {
  post: Post;
  target: PostTarget;
  connection: PublishConnection;
  /**
   * Persists intermediate platform ids BEFORE waiting on the platform (resume relies on it).
   * Replaces the stored state, and ends a recorded intent (its answer is now known).
   */
  saveProgress(state: ResumeState): Promise<void>;
  /**
   * Left by an earlier run that recorded `recordIntent` and stopped before recording the answer:
   * that step may have reached the platform. The publisher must look for its result (or end
   * `outcome_unknown`), never send it blindly again.
   */
  intent: PublishIntent | null;
  /** Durably records that `step` is about to be sent (a call that creates something). */
  recordIntent(step: string): Promise<void>;
  /** The step was answered and created nothing (a refusal, a refused connection): forget it. */
  clearIntent(): Promise<void>;
  /** Persists tokens obtained by a refresh (the use case encrypts them). */
  saveTokens(tokens: RefreshedTokens): Promise<void>;
  /**
   * Called just before the call the platform counts against the connection's limit (TikTok's
   * init, X's create...), after any preliminary calls: the platform counts that call when it
   * arrives, so it is paced there, not when the run starts. Resolves when the call may go;
   * rejects with PaceDeferral when the connection is out of budget (let it through: the target
   * waits for its slot, nothing was sent). Counts once per run however often it is called.
   */
  beforeCountedCall(): Promise<void>;
  /** Aborted on shutdown or when the lease is lost. */
  signal: AbortSignal;
}

/**
 * What a target published besides its main post: its follow-ups (in order) and its first
 * comment. Left out when there were none.
 */
export interface PublishedParts {
  threadPostIds?: string[];
  firstCommentId?: string | null;
}

/** What was published before a later part (a follow-up, the comment) failed: kept and shown. */
export interface PublishedSoFar extends PublishedParts {
  platformPostId: string;
  platformUrl: string | null;
}

export type PublishOutcome =
  | ({ kind: 'published'; platformPostId: string; platformUrl: string | null } & PublishedParts)
  /** `code` and `message` are the platform's own, verbatim where it gave them. */
  | {
      kind: 'failed';
      code: string;
      message: string;
      retryable: boolean;
      /** Set when the main post went out and a follow-up or the comment did not. */
      publishedSoFar?: PublishedSoFar;
    }
  /** The token is expired or revoked and could not be refreshed: the connection is marked expired. */
  | { kind: 'connection_expired'; message: string }
  /**
   * The platform asked to slow down (a 429, an exhausted rate-limit or publishing quota) and
   * said until when: the target waits until `retryAt` without spending an attempt. `code` and
   * `message` are the platform's own.
   */
  | { kind: 'throttled'; code: string; message: string; retryAt: Date };

export interface PostDraft {
  content: string;
  mediaUrls: string[];
  /** Follow-ups, counted against the platform's limits like the main post (absent: none). */
  thread?: ThreadPart[];
  firstComment?: string | null;
  platformOptions: PlatformOptions;
}

export interface PlatformPublisher {
  readonly platform: Platform;
  /** Platform-specific checks beyond the shared rules (field paths as in the request body). */
  validate(draft: PostDraft): Problem[];
  /**
   * Checks that depend on one target connection's platform data (a Mastodon instance's own
   * post length), once per connection the post goes to; `field` names that connection in the
   * request. Absent: the platform's rules are the same for every connection.
   */
  validateFor?(draft: PostDraft, platformData: PlatformData | null, field: string): Problem[];
  /** Publishes one target from scratch. */
  publish(request: PublishRequest): Promise<PublishOutcome>;
  /**
   * Continues an interrupted publish from `request.target.resumeState` (may be null when the
   * crash came before anything was stored). Must never publish the same content twice.
   */
  resume(request: PublishRequest): Promise<PublishOutcome>;
}

/** What a platform demands of a post's media (kinds are guessed from the URL extension). */
export interface PlatformMediaRules {
  /** Set when a post without media is refused: the message says what to give. */
  readonly requiredMessage?: string;
  /** A media kind the platform refuses, with the message for each such URL. */
  readonly refuses?: { readonly photo?: string; readonly video?: string };
}

/**
 * The rules of one platform, declared once in that platform's descriptor. The shared post
 * rules apply them to every post that targets the platform.
 */
export interface PlatformRules {
  readonly name: Platform;
  readonly media: PlatformMediaRules;
  /** Longest content in characters (code points); absent: only the shared limit applies. */
  readonly contentMaxLength?: number;
  /**
   * How the platform counts characters, when not in code points (X weighs URLs as 23 and most
   * CJK characters and emoji as 2): `contentMaxLength` is then in its units.
   */
  contentLength?(content: string): number;
  /** Replies to one's own posts can be published: the platform takes a `thread`. */
  readonly replies?: boolean;
  /** Comments on one's own posts can be published: the platform takes a `first_comment`. */
  readonly comments?: boolean;
  /**
   * Extra fields of POST /social-accounts/connect this platform takes (field name -> JSON
   * Schema; the HTTP schema shows them), and which of them it requires. The connector's
   * `prepare` reads them.
   */
  readonly connectFields?: {
    readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    readonly required: readonly string[];
  };
  /**
   * JSON Schema of `platform_options.<name>` (the HTTP schema and OpenAPI show it). The
   * domain never interprets it: `validateOptions` is the rule.
   */
  readonly optionsSchema: Readonly<Record<string, unknown>>;
  /**
   * Checks `platform_options.<name>` (already known to be an object); field paths
   * `platform_options.<name>.<option>`. `mediaUrls` are the post's valid media URLs.
   */
  validateOptions(options: Record<string, unknown>, mediaUrls: readonly string[]): Problem[];
}

/** The platforms this deployment serves and their rules. */
export interface PlatformCatalog {
  /** Every platform name, in a stable order (error messages and schemas list them so). */
  readonly names: readonly Platform[];
  rules(platform: string): PlatformRules | undefined;
}

export interface PlatformRegistry extends PlatformCatalog {
  get(platform: Platform): PlatformPublisher | undefined;
  /** How accounts of the platform are connected (absent: only bring-your-own tokens). */
  oauth(platform: Platform): PlatformOAuth | undefined;
  /** How accounts of the platform are connected by credentials (absent: not that way). */
  credentials(platform: Platform): PlatformCredentials | undefined;
  /** How the numbers of the platform's posts are read (absent: they are not). */
  metricsReader(platform: Platform): PlatformMetricsReader | undefined;
  /** How the platform's published posts are deleted (absent: they cannot be, `unsupported`). */
  remover(platform: Platform): PlatformRemover | undefined;
  /** How the comments under the platform's posts are read and answered (absent: they are not). */
  commentsClient(platform: Platform): PlatformCommentsClient | undefined;
}
