import type { PublishConnection } from './connection.ts';

/**
 * One published target to take down on its platform: its main post, the follow-ups of its
 * thread and its first comment, with the ids the publisher recorded.
 */
export interface RemoveRequest {
  connection: PublishConnection;
  platformPostId: string;
  platformUrl: string | null;
  /** The thread's follow-ups, in the order they were published (empty: none). */
  threadPostIds: readonly string[];
  firstCommentId: string | null;
  signal: AbortSignal;
  /**
   * Stores tokens the remover renewed after the platform refused the access token (a rotated
   * refresh token is single-use: it must be kept). The worker always gives it; absent (a test
   * calling a remover alone): tokens are not renewed, a refused token is `connection_expired`.
   */
  saveTokens?(tokens: {
    accessToken: string;
    refreshToken: string | null;
    expiresAt: Date | null;
  }): Promise<void>;
}

/**
 * What the platform said. A delete is idempotent: the platform's 404 (already gone) is
 * `removed`, and a lost answer is simply asked again.
 */
export type RemoveOutcome =
  | { kind: 'removed' }
  /** `code` and `message` are the platform's own, verbatim where it gave them. */
  | { kind: 'failed'; code: string; message: string; retryable: boolean }
  /** The token was refused and could not be renewed: the connection is marked expired. */
  | { kind: 'connection_expired'; message: string }
  /** The platform asked to slow down until `retryAt`: asked again then, no attempt spent. */
  | { kind: 'throttled'; code: string; message: string; retryAt: Date };

/**
 * How one platform's published posts are deleted (its folder declares it beside its
 * publisher). A platform without one has no delete: its targets answer `unsupported`.
 */
export interface PlatformRemover {
  /**
   * The scopes the delete needs, in the platform's own names (absent: those of publishing).
   * A connection whose granted scopes are known and lack one is told to reconnect.
   */
  readonly scopes?: readonly string[];
  /**
   * Deletes the follow-ups (last first), the first comment, then the main post. Each part
   * already gone counts as removed; `removed` only when all of them are.
   */
  remove(request: RemoveRequest): Promise<RemoveOutcome>;
}
