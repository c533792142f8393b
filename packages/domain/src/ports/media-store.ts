import type { Readable } from 'node:stream';

/** Bytes `start`..`end` of an object, both included (an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object read from the store: its stream and its total size. */
export interface StoredMedia {
  body: Readable;
  /** The whole object's size (not the range's). */
  size: number;
}

/**
 * Where hosted media bytes live (local disk, any S3-compatible store). Keys are media names.
 * Bodies are streams both ways: an upload is never held whole in memory.
 */
export interface MediaStore {
  readonly kind: 'local' | 's3' | 'memory';
  /**
   * Stores `body` under `key` as it streams. Rejects when the body fails (too large, the client
   * went away); what was written so far is removed by the store or by the caller's `delete`.
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The object (or `range` of it); null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<StoredMedia | null>;
  /** The object's size, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes the object; removing a missing one is fine. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
