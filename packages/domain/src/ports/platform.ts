import type { Problem } from '../errors.ts';
import type { Platform, PlatformOptions, Post, PostTarget, ResumeState } from '../model.ts';

/** A connection's credentials, decrypted for the duration of one publish. */
export interface PublishConnection {
  id: string;
  platform: Platform;
  externalId: string;
  accessToken: string;
  refreshToken: string | null;
  tokenExpiresAt: Date | null;
}

export interface RefreshedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
}

export interface PublishRequest {
  post: Post;
  target: PostTarget;
  connection: PublishConnection;
  /** Persists intermediate platform ids BEFORE waiting on the platform (resume relies on it). */
  saveProgress(state: ResumeState): Promise<void>;
  /** Persists tokens obtained by a refresh (the use case encrypts them). */
  saveTokens(tokens: RefreshedTokens): Promise<void>;
  /** Aborted on shutdown or when the lease is lost. */
  signal: AbortSignal;
}

export type PublishOutcome =
  | { kind: 'published'; platformPostId: string; platformUrl: string | null }
  /** `code` and `message` are the platform's own, verbatim where it gave them. */
  | { kind: 'failed'; code: string; message: string; retryable: boolean }
  /** The token is expired or revoked and could not be refreshed: the connection is marked expired. */
  | { kind: 'connection_expired'; message: string };

export interface PostDraft {
  content: string;
  mediaUrls: string[];
  platformOptions: PlatformOptions;
}

export interface PlatformPublisher {
  readonly platform: Platform;
  /** Platform-specific checks beyond the shared rules (field paths as in the request body). */
  validate(draft: PostDraft): Problem[];
  /** Publishes one target from scratch. */
  publish(request: PublishRequest): Promise<PublishOutcome>;
  /**
   * Continues an interrupted publish from `request.target.resumeState` (may be null when the
   * crash came before anything was stored). Must never publish the same content twice.
   */
  resume(request: PublishRequest): Promise<PublishOutcome>;
}

export interface PlatformRegistry {
  get(platform: Platform): PlatformPublisher | undefined;
}
