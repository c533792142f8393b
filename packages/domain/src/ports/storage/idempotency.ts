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
