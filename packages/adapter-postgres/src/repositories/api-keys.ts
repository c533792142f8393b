import type { ApiKey, ApiKeyRepository } from '@social-publisher/domain';
import { CompiledQuery, type Kysely } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import { preparedSql } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { countOfAccount } from './account-quota.ts';
import { apiKeyColumns, columnList } from './columns.ts';

const BY_HASH = preparedSql(
  'api_keys_by_hash',
  `select ${columnList(apiKeyColumns, 'api_keys')} from api_keys where key_hash = any($1::text[])`,
);

export function createApiKeyRepository(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): ApiKeyRepository {
  /**
   * Every authenticated request asks: the lookups of the same moment share one query, sent as
   * fixed text (built once, not per call).
   */
  const byHash = batchedOrDirect(options, {
    maxSize: BATCH_MAX,
    async run(hashes: string[]): Promise<Array<ApiKey | null>> {
      const { rows } = await db.executeQuery<ApiKey>(CompiledQuery.raw(BY_HASH, [hashes]));
      const found = new Map(rows.map((row) => [row.keyHash, row]));
      return hashes.map((hash) => {
        const row = found.get(hash);
        return row ? { ...row } : null;
      });
    },
  });

  return {
    async insert(key: ApiKey): Promise<void> {
      await db
        .insertInto('api_keys')
        .values({
          id: key.id,
          account_id: key.accountId,
          created_by: key.createdBy,
          name: key.name,
          key_hash: key.keyHash,
          key_prefix: key.keyPrefix,
          created_at: key.createdAt,
          last_used_at: key.lastUsedAt,
        })
        .execute();
    },

    findById: async (id) =>
      (await db
        .selectFrom('api_keys')
        .select(apiKeyColumns)
        .where('id', '=', id)
        .executeTakeFirst()) ?? null,
    findByHash: (keyHash) => byHash(keyHash),

    async listByAccount(accountId: string): Promise<ApiKey[]> {
      return db
        .selectFrom('api_keys')
        .select(apiKeyColumns)
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** Locks the account row first inside a unit of work (account-quota.ts). */
    countByAccount: (accountId: string): Promise<number> =>
      countOfAccount(db, 'api_keys', accountId),

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async touchLastUsed(id: string, at: Date): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}
