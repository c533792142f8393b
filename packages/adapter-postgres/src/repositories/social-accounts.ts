import type {
  ConnectionStatus,
  Platform,
  SocialAccount,
  SocialAccountRepository,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { socialAccountColumns } from './columns.ts';

/** Connections. Tokens are stored exactly as the domain's TokenCipher produced them. */
export function createSocialAccountRepository(db: Kysely<Database>): SocialAccountRepository {
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
          status: connection.status,
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
      return db
        .selectFrom('social_accounts')
        .select(socialAccountColumns)
        .where('id', '=', sql<string>`any(${[...new Set(ids)]}::uuid[])`)
        .execute();
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

    async findActiveByPlatform(
      accountId: string,
      platform: Platform,
    ): Promise<SocialAccount | null> {
      return (
        (await db
          .selectFrom('social_accounts')
          .select(socialAccountColumns)
          .where('account_id', '=', accountId)
          .where('platform', '=', platform)
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
        .set({
          access_token_ciphertext: tokens.accessTokenCiphertext,
          refresh_token_ciphertext: tokens.refreshTokenCiphertext,
          token_expires_at: tokens.tokenExpiresAt,
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
    },

    async setStatus(id: string, status: ConnectionStatus, at: Date): Promise<void> {
      await db
        .updateTable('social_accounts')
        .set({ status, updated_at: at })
        .where('id', '=', id)
        .execute();
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('social_accounts').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
