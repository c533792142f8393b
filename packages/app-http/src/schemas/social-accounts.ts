import { CONNECTION_STATUSES, type SocialAccount } from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

/** A connection as shown to clients: its tokens are never returned. */
export const SocialAccountSchema = Type.Object({
  id: Uuid('Use it in social_account_ids'),
  platform: Type.String({ description: 'The platform name, as in POST /posts platforms' }),
  external_id: Type.String({ description: "The account's id on the platform" }),
  display_name: Nullable(Type.String()),
  status: Type.Enum([...CONNECTION_STATUSES], {
    description: 'expired: the platform refused the token or its renewal; connect it again',
  }),
  scopes: Type.Array(Type.String(), { description: 'Scopes granted on the platform' }),
  token_expires_at: Nullable(Timestamp()),
  sandbox: Type.Boolean({ description: 'A sandbox connection never calls its platform' }),
  created_at: Timestamp(),
});

export function presentSocialAccount(
  connection: SocialAccount,
): Static<typeof SocialAccountSchema> {
  return {
    id: connection.id,
    platform: connection.platform,
    external_id: connection.externalId,
    display_name: connection.displayName,
    status: connection.status,
    scopes: connection.scopes,
    token_expires_at: connection.tokenExpiresAt ? connection.tokenExpiresAt.toISOString() : null,
    sandbox: connection.sandbox,
    created_at: connection.createdAt.toISOString(),
  };
}
