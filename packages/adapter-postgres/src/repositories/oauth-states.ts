import type { OAuthState, OAuthStateRepository } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

const oauthStateColumns = [
  'id',
  'state_hash as stateHash',
  'account_id as accountId',
  'user_id as userId',
  'platform',
  'code_verifier_ciphertext as codeVerifierCiphertext',
  'browser_hash as browserHash',
  'return_url as returnUrl',
  'connect_params as connectParams',
  'expires_at as expiresAt',
  'created_at as createdAt',
] as const;

/**
 * Connect flows in progress; a state is bound to one browser with one conditional UPDATE and
 * taken (deleted and returned) in one statement.
 */
export function createOAuthStateRepository(db: Kysely<Database>): OAuthStateRepository {
  return {
    async insert(state: OAuthState): Promise<void> {
      await db
        .insertInto('oauth_states')
        .values({
          id: state.id,
          state_hash: state.stateHash,
          account_id: state.accountId,
          user_id: state.userId,
          platform: state.platform,
          code_verifier_ciphertext: state.codeVerifierCiphertext,
          browser_hash: state.browserHash,
          return_url: state.returnUrl,
          connect_params: state.connectParams ? JSON.stringify(state.connectParams) : null,
          expires_at: state.expiresAt,
          created_at: state.createdAt,
        })
        .execute();
    },

    async find(stateHash: string): Promise<OAuthState | null> {
      return (
        (await db
          .selectFrom('oauth_states')
          .select(oauthStateColumns)
          .where('state_hash', '=', stateHash)
          .executeTakeFirst()) ?? null
      );
    },

    async bindBrowser(stateHash: string, browserHash: string): Promise<boolean> {
      // Conditional: the first browser to open the consent owns the flow.
      const result = await db
        .updateTable('oauth_states')
        .set({ browser_hash: browserHash })
        .where('state_hash', '=', stateHash)
        .where('browser_hash', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async take(stateHash: string): Promise<OAuthState | null> {
      return (
        (await db
          .deleteFrom('oauth_states')
          .where('state_hash', '=', stateHash)
          .returning(oauthStateColumns)
          .executeTakeFirst()) ?? null
      );
    },

    async deleteExpired(before: Date): Promise<number> {
      const result = await db
        .deleteFrom('oauth_states')
        .where('expires_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
