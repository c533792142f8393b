import type { IdempotencyRecord, IdempotencyRepository } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { idempotencyColumns } from './columns.ts';

export function createIdempotencyRepository(db: Kysely<Database>): IdempotencyRepository {
  const findLive = async (scope: string, key: string, now: Date) =>
    (await db
      .selectFrom('idempotency_keys')
      .select(idempotencyColumns)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('expires_at', '>', now)
      .executeTakeFirst()) ?? null;

  async function putIfAbsent(record: IdempotencyRecord): Promise<IdempotencyRecord> {
    const row = {
      scope: record.scope,
      key: record.key,
      request_hash: record.requestHash,
      status_code: record.statusCode,
      response_body: record.responseBody,
      created_at: record.createdAt,
      expires_at: record.expiresAt,
    };
    for (;;) {
      const stored = await db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((conflict) =>
          conflict
            .columns(['scope', 'key'])
            .doUpdateSet({
              request_hash: (eb) => eb.ref('excluded.request_hash'),
              status_code: (eb) => eb.ref('excluded.status_code'),
              response_body: (eb) => eb.ref('excluded.response_body'),
              created_at: (eb) => eb.ref('excluded.created_at'),
              expires_at: (eb) => eb.ref('excluded.expires_at'),
            })
            .where('idempotency_keys.expires_at', '<=', sql<Date>`excluded.created_at`),
        )
        .returning(idempotencyColumns)
        .executeTakeFirst();
      if (stored !== undefined) return stored;
      const live = await findLive(record.scope, record.key, record.createdAt);
      if (live !== null) return live;
      // The live record expired between the two statements: insert again.
    }
  }

  return {
    find: findLive,

    /**
     * Inserts the record, or replaces an expired one, in one statement; when a live record
     * already holds (scope, key) that one is returned instead (read by a second query).
     */
    putIfAbsent,

    async deleteIfOwned(scope, key, requestHash, responseBody): Promise<boolean> {
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('request_hash', '=', requestHash)
        .where('response_body', '=', responseBody)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async deleteExpired(now: Date): Promise<number> {
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('expires_at', '<=', now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
