/**
 * `Idempotency-Key` on the post-creating routes, over the IdempotencyRepository port.
 *
 * - A stored success is replayed for the same key and the same body (sha256 of the canonical
 *   JSON); the same key with another body is a 409 `idempotency_key_reused`. Records live at
 *   least `ttlMs` (24 h by default).
 * - Only successes are stored: a request that failed (validation, auth...) created nothing,
 *   so the client may fix it and retry with the same key.
 * - Concurrent requests with one key: within a process they run one after the other (the
 *   second replays the first). Across processes a lock record (putIfAbsent on a `#lock`
 *   scope, owned by this process, released when the request ends, expiring on its own if the
 *   process dies) makes a second process wait for the first's stored response; if none comes
 *   in time, 409 `idempotency_key_in_progress` with Retry-After.
 * - A response that created something is stored even through a short database outage: the
 *   write is tried again for `storeRetryMs` (within the lock's life), since a retry of the
 *   request that finds no record would create everything again.
 */
import { randomUUID } from 'node:crypto';
import type { CoreDeps, IdempotencyRecord } from '@social-publisher/domain';
import { HttpError } from '../errors.ts';
import { KeyMutex } from './key-mutex.ts';
import { requestHash } from './request-hash.ts';

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

export interface IdempotentResponse extends StoredResponse {
  /** true when this is the stored response of an earlier request. */
  replayed: boolean;
}

export interface IdempotencyOptions {
  ttlMs: number;
  /** How long a cross-process lock holds if its owner dies. */
  lockMs?: number;
  /** How long a request waits for another process that holds the lock. */
  waitMs?: number;
  pollMs?: number;
  /** How long storing a success is tried again when it fails (default 15 s). */
  storeRetryMs?: number;
}

export interface Idempotency {
  run(
    scope: string,
    key: string,
    body: unknown,
    execute: () => Promise<StoredResponse>,
  ): Promise<IdempotentResponse>;
  /** Deletes expired records; returns how many. */
  sweep(): Promise<number>;
}

/** Status code of lock records (the store accepts 100-599; 102 = Processing). */
const LOCK_STATUS = 102;
const LOCK_SUFFIX = '#lock';

const keyReused = () =>
  new HttpError(
    409,
    'idempotency_key_reused',
    'this Idempotency-Key was already used with a different request body; use a new key',
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createIdempotency(
  deps: Pick<CoreDeps, 'repos' | 'clock' | 'logger'>,
  options: IdempotencyOptions,
): Idempotency {
  const repo = deps.repos.idempotency;
  const owner = `lock:${randomUUID()}`;
  const mutex = new KeyMutex();
  const lockMs = options.lockMs ?? 30_000;
  const waitMs = options.waitMs ?? 5_000;
  const pollMs = options.pollMs ?? 50;
  // Less than the lock's life: no other process may start the request while this one stores.
  const storeRetryMs = Math.min(options.storeRetryMs ?? 15_000, lockMs / 2);

  /** `write`, tried again (250 ms doubling to 5 s) until it succeeds or `storeRetryMs` ends. */
  async function persistently<T>(scope: string, write: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + storeRetryMs;
    for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        return await write();
      } catch (error) {
        if (Date.now() + delay > deadline) throw error;
        deps.logger.warn(
          { scope, err: String(error), retryInMs: delay },
          'idempotency: storing a response failed; trying again',
        );
        await sleep(delay);
      }
    }
  }

  const replay = (record: IdempotencyRecord, hash: string): IdempotentResponse => {
    if (record.requestHash !== hash) throw keyReused();
    return { statusCode: record.statusCode, body: JSON.parse(record.responseBody), replayed: true };
  };

  /** Takes the cross-process lock, or returns the response another process stored meanwhile. */
  async function acquire(
    scope: string,
    key: string,
    hash: string,
  ): Promise<IdempotentResponse | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const now = deps.clock.now();
      const lock = await repo.putIfAbsent({
        scope: `${scope}${LOCK_SUFFIX}`,
        key,
        requestHash: hash,
        statusCode: LOCK_STATUS,
        responseBody: owner,
        createdAt: now,
        expiresAt: new Date(now.getTime() + lockMs),
      });
      // This process's own lock (from this or an earlier request) is free: the mutex serializes us.
      if (lock.responseBody === owner) return null;
      if (lock.requestHash !== hash) throw keyReused();
      await sleep(pollMs);
      const done = await repo.find(scope, key, deps.clock.now());
      if (done) return replay(done, hash);
      if (Date.now() >= deadline) {
        throw new HttpError(
          409,
          'idempotency_key_in_progress',
          'a request with this Idempotency-Key is still being processed; retry shortly',
          { headers: { 'Retry-After': '1' } },
        );
      }
    }
  }

  return {
    run(scope, key, body, execute) {
      const hash = requestHash(body);
      return mutex.run(`${scope}\n${key}`, async () => {
        const existing = await repo.find(scope, key, deps.clock.now());
        if (existing) return replay(existing, hash);
        const replayed = await acquire(scope, key, hash);
        if (replayed) return replayed;
        try {
          return await executeAndStore(scope, key, hash, execute);
        } finally {
          // Released in every case: after a success the stored response answers retries, after
          // a failure the client may retry with the same key at once, from any process.
          await repo
            .deleteIfOwned(`${scope}${LOCK_SUFFIX}`, key, hash, owner)
            .catch((error: unknown) =>
              deps.logger.warn({ scope, err: String(error) }, 'idempotency: lock release failed'),
            );
        }
      });
    },
    sweep: () => repo.deleteExpired(deps.clock.now()),
  };

  async function executeAndStore(
    scope: string,
    key: string,
    hash: string,
    execute: () => Promise<StoredResponse>,
  ): Promise<IdempotentResponse> {
    const response = await execute();
    if (response.statusCode < 200 || response.statusCode >= 300) {
      return { ...response, replayed: false };
    }
    const now = deps.clock.now();
    const responseBody = JSON.stringify(response.body);
    const stored = await persistently(scope, () =>
      repo.putIfAbsent({
        scope,
        key,
        requestHash: hash,
        statusCode: response.statusCode,
        responseBody,
        createdAt: now,
        expiresAt: new Date(now.getTime() + options.ttlMs),
      }),
    );
    if (stored.responseBody !== responseBody || stored.requestHash !== hash) {
      // Another process got there first (its lock had expired): answer what it stored.
      deps.logger.warn({ scope }, 'idempotency: a concurrent request stored its response first');
      return replay(stored, hash);
    }
    return { ...response, replayed: false };
  }
}
