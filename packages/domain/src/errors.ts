/**
 * Every expected failure of a use case. The HTTP layer maps these to statuses in one place;
 * the worker maps them to retry decisions. Nothing else invents error codes.
 */

/** One failed rule: the field path (e.g. `platform_options.<platform>.<option>`) and what is wrong. */
export interface Problem {
  field: string;
  message: string;
}

export type DomainError =
  | { code: 'validation_failed'; message: string; details: Problem[] }
  | { code: 'not_found'; message: string }
  | { code: 'forbidden'; message: string }
  | { code: 'conflict'; message: string }
  /** A post that can no longer be changed: publishing began, or it is finished or cancelled. */
  | { code: 'post_not_editable'; message: string }
  | { code: 'limit_exceeded'; message: string }
  /** Approving or rejecting a post that does not wait for approval: the message says its status. */
  | { code: 'post_not_pending'; message: string }
  /** Approving or rejecting a post one created oneself: approval takes a second person. */
  | { code: 'own_post'; message: string }
  /** Metrics asked of a post that has no published target (yet, or ever): the message says why. */
  | { code: 'post_not_published'; message: string }
  | { code: 'unauthorized'; message: string }
  /** A platform whose OAuth client is not configured: the message names the variables. */
  | { code: 'platform_not_configured'; message: string }
  /** Credentials the platform refused at connect (a wrong password): the message names its code. */
  | { code: 'platform_auth_failed'; message: string }
  /** The platform could not be reached, or failed on its side, while connecting: try again. */
  | { code: 'platform_unavailable'; message: string }
  /** POST /posts/queue for a connection that has no posting slots. */
  | { code: 'no_slots'; message: string }
  /** POST /media over MEDIA_MAX_BYTES. */
  | { code: 'media_too_large'; message: string }
  /** POST /media past MEDIA_QUOTA_BYTES: the account's media would hold too many bytes. */
  | { code: 'media_quota_exceeded'; message: string }
  /** POST /media whose first bytes are not of its declared type (HTML sent as image/png). */
  | { code: 'media_type_mismatch'; message: string }
  /** POST /media with a type it does not host. */
  | { code: 'unsupported_media_type'; message: string }
  /** A reply to (or an action on) a comment the platform deleted meanwhile. */
  | { code: 'comment_gone'; message: string }
  /** What the platform does not offer for this comment (hide, delete, any comments): why. */
  | { code: 'unsupported'; message: string }
  /** The platform refused a comment action for good (its own code and words in the message). */
  | { code: 'platform_refused'; message: string };

export const validationFailed = (details: Problem[]): DomainError => ({
  code: 'validation_failed',
  message:
    details.length === 1
      ? `${details[0]?.field}: ${details[0]?.message}`
      : `${details.length} fields are invalid`,
  details,
});

export const notFound = (what: string): DomainError => ({
  code: 'not_found',
  message: `${what} not found`,
});

export const forbidden = (message: string): DomainError => ({ code: 'forbidden', message });
export const conflict = (message: string): DomainError => ({ code: 'conflict', message });
export const postNotEditable = (message: string): DomainError => ({
  code: 'post_not_editable',
  message,
});
export const postNotPending = (message: string): DomainError => ({
  code: 'post_not_pending',
  message,
});
export const ownPost = (message: string): DomainError => ({ code: 'own_post', message });
export const postNotPublished = (message: string): DomainError => ({
  code: 'post_not_published',
  message,
});
export const mediaTooLarge = (maxBytes: number): DomainError => ({
  code: 'media_too_large',
  message: `the media is larger than the limit of ${maxBytes} bytes (MEDIA_MAX_BYTES)`,
});
export const mediaQuotaExceeded = (quotaBytes: number): DomainError => ({
  code: 'media_quota_exceeded',
  message: `the account's media would hold more than ${quotaBytes} bytes (MEDIA_QUOTA_BYTES): delete some first`,
});
export const mediaTypeMismatch = (contentType: string): DomainError => ({
  code: 'media_type_mismatch',
  message: `the file's first bytes are not those of ${contentType}: send its real type`,
});
export const unsupportedMediaType = (message: string): DomainError => ({
  code: 'unsupported_media_type',
  message,
});
export const noSlots = (message: string): DomainError => ({ code: 'no_slots', message });
export const limitExceeded = (message: string): DomainError => ({
  code: 'limit_exceeded',
  message,
});
export const commentGone = (message: string): DomainError => ({ code: 'comment_gone', message });
export const unsupported = (message: string): DomainError => ({ code: 'unsupported', message });
export const platformRefused = (message: string): DomainError => ({
  code: 'platform_refused',
  message,
});
export const unauthorized = (message = 'missing or invalid credential'): DomainError => ({
  code: 'unauthorized',
  message,
});

/** The message of anything thrown, for a log line or a stored reason. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
