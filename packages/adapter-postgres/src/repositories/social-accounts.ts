import type { Platform, SocialAccount, SocialAccountRepository } from '@social-publisher/domain';
import { CompiledQuery, type Kysely } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import { preparedSql } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { countOfAccount } from './account-quota.ts';
import { columnList, socialAccountColumns } from './columns.ts';

/** Sent as fixed text (built once, not per call), prepared once per connection. */
const BY_IDS = preparedSql(
  'social_accounts_by_ids',
  `select ${columnList(socialAccountColumns, 'social_accounts')} from social_accounts where id = any($1::uuid[])`,
);

/** Connections. Tokens are stored exactly as the domain's TokenCipher produced them. */
/** New tokens of a connection: renewed or reconnected, the refresh pass's hold on it ends. */
const renewedTokens = (tokens: {
  accessTokenCiphertext: string;
  refreshTokenCiphertext: string | null;
  tokenExpiresAt: Date | null;
}) => ({
  access_token_ciphertext: tokens.accessTokenCiphertext,
  refresh_token_ciphertext: tokens.refreshTokenCiphertext,
  token_expires_at: tokens.tokenExpiresAt,
  refresh_lease_until: null,
});

export function createSocialAccountRepository(
  db: Kysely<Database>,
  options: StatementSharing = { batch: false },
): SocialAccountRepository {
  /** Every create and publish run asks: the lookups of the same moment share one query. */
  const byIds = batchedOrDirect(options, {
    maxSize: BATCH_MAX,
    async run(lists: Array<readonly string[]>): Promise<SocialAccount[][]> {
      const ids = [...new Set(lists.flat())];
      const { rows } = await db.executeQuery<SocialAccount>(CompiledQuery.raw(BY_IDS, [ids]));
      const found = new Map(rows.map((row) => [row.id, row]));
      return lists.map((list) =>
        [...new Set(list)].flatMap((id) => {
          const row = found.get(id);
          return row ? [{ ...row }] : [];
        }),
      );
    },
  });

  /** The account's connections on one platform. */
  const onPlatform = (accountId: string, platform: Platform) =>
    db
      .selectFrom('social_accounts')
      .select(socialAccountColumns)
      .where('account_id', '=', accountId)
      .where('platform', '=', platform);

  return {
    async insert(connection: SocialAccount): Promise<void> {
      await db
        .insertInto('social_accounts')
        .values({
          id: connection.id,
          account_id: connection.accountId,
          platform: connection.platform,
          external_id: connection.externalId,
          display_name: connection.displayName,
          access_token_ciphertext: connection.accessTokenCiphertext,
          refresh_token_ciphertext: connection.refreshTokenCiphertext,
          token_expires_at: connection.tokenExpiresAt,
          scopes: connection.scopes,
          status: connection.status,
          sandbox: connection.sandbox,
          platform_data: jsonOrNull(connection.platformData),
          created_at: connection.createdAt,
          updated_at: connection.updatedAt,
        })
        .execute();
    },

    async findById(id: string): Promise<SocialAccount | null> {
      return (
        (await db
          .selectFrom('social_accounts')
          .select(socialAccountColumns)
          .where('id', '=', id)
          .executeTakeFirst()) ?? null
      );
    },

    async findByIds(ids: readonly string[]): Promise<SocialAccount[]> {
      if (ids.length === 0) return [];
      return byIds(ids);
    },

    async listByAccount(accountId: string): Promise<SocialAccount[]> {
      return db
        .selectFrom('social_accounts')
        .select(socialAccountColumns)
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** Locks the account row first inside a unit of work (account-quota.ts). */
    countByAccount: (accountId: string): Promise<number> =>
      countOfAccount(db, 'social_accounts', accountId),

    async findActiveByPlatform(
      accountId: string,
      platform: Platform,
    ): Promise<SocialAccount | null> {
      return (
        (await onPlatform(accountId, platform)
          .where('status', '=', 'active')
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst()) ?? null
      );
    },

    async updateTokens(id, tokens, at): Promise<void> {
      await db
        .updateTable('social_accounts')
        .set({ ...renewedTokens(tokens), updated_at: at })
        .where('id', '=', id)
        .execute();
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('social_accounts').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async findByExternalId(accountId, platform, externalId): Promise<SocialAccount | null> {
      return (
        (await onPlatform(accountId, platform)
          .where('external_id', '=', externalId)
          .orderBy('created_at')
          .limit(1)
          .executeTakeFirst()) ?? null
      );
    },

    async reconnect(id, fields, at): Promise<void> {
      await db
        .updateTable('social_accounts')
        .set({
          ...renewedTokens(fields),
          display_name: fields.displayName,
          scopes: fields.scopes,
          ...(fields.platformData === undefined
            ? {}
            : { platform_data: jsonOrNull(fields.platformData) }),
          status: 'active',
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
    },

    async markExpired(id, at): Promise<boolean> {
      const result = await db
        .updateTable('social_accounts')
        .set({ status: 'expired', updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async claimExpiring(cutoff, leaseUntil, now, limit): Promise<SocialAccount[]> {
      // One statement: SKIP LOCKED lets concurrent workers claim disjoint rows.
      return db
        .updateTable('social_accounts')
        .set({ refresh_lease_until: leaseUntil })
        .where('id', 'in', (qb) =>
          qb
            .selectFrom('social_accounts')
            .select('id')
            .where('status', '=', 'active')
            .where('sandbox', '=', false)
            .where('token_expires_at', '<', cutoff)
            .where((eb) =>
              eb.or([eb('refresh_lease_until', 'is', null), eb('refresh_lease_until', '<', now)]),
            )
            .orderBy('token_expires_at')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returning(socialAccountColumns)
        .execute();
    },
  };
}

/** A jsonb value as written (JSON text), or SQL NULL for none. */
const jsonOrNull = (value: object | null | undefined): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);
