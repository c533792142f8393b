import type { Media } from '../../media-model.ts';

export interface MediaRepository {
  insert(media: Media): Promise<void>;
  findById(id: string): Promise<Media | null>;
  /** By public name, for the public URL and for posts' `media_urls`. */
  findByNames(names: readonly string[]): Promise<Media[]>;
  /**
   * An account's media, newest first (keyset on created_at desc, id desc): at most `limit`
   * after `before`.
   */
  listByAccount(
    accountId: string,
    page: { limit: number; before?: { createdAt: Date; id: string } },
  ): Promise<Media[]>;
  /**
   * The bytes the account's media hold together (MEDIA_QUOTA_BYTES). Inside a unit of work it
   * first locks the account, so "sum, then insert below the quota" cannot be raced.
   */
  totalBytesByAccount(accountId: string): Promise<number>;
  /** Whether a post that is not finished (see TERMINAL_POST_STATUSES) uses it. */
  inUse(id: string): Promise<boolean>;
  /**
   * Records that `postId` uses these media (by name; unknown names are ignored) and clears their
   * expiry: nothing a post still needs is swept.
   */
  link(postId: string, names: readonly string[]): Promise<void>;
  /**
   * Gives every media without an expiry that no unfinished post uses one: the latest of its
   * creation and its posts' last update, plus `retentionMs`. Returns how many it set.
   */
  settleExpiry(retentionMs: number): Promise<number>;
  /** Media whose expiry is at or before `now` and that no unfinished post uses, oldest first. */
  listExpired(now: Date, limit: number): Promise<Media[]>;
  /** Deletes the row (and its links); false when it was gone. */
  delete(id: string): Promise<boolean>;
}
