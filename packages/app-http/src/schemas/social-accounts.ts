import {
  CONNECTION_STATUSES,
  type SocialAccount,
  type SocialAccountDetail,
} from '@social-publisher/domain';
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

/** What is known of a connection's budget on its platform (GET /social-accounts/:id). */
export const RateLimitStateSchema = Type.Object(
  {
    limit: Type.Integer({ description: 'Calls the platform allows per window (our setting)' }),
    window_seconds: Type.Number({ description: 'The length of that window' }),
    remaining: Type.Integer({ description: 'Posts that could be sent to the platform right now' }),
    resets_at: Nullable(
      Timestamp(
        'When the next post may go if none remains, else when the oldest counted one leaves the window',
      ),
    ),
    waiting: Type.Integer({ description: 'Posts waiting for a slot of this connection' }),
    blocked_until: Nullable(
      Timestamp('Until when the platform itself refused calls (its last rate-limit answer)'),
    ),
  },
  {
    description:
      "Counted by this service ahead of the platform; the platform's answers remain the truth",
  },
);

export const SocialAccountDetailSchema = Type.Object({
  ...SocialAccountSchema.properties,
  rate_limit: Nullable(RateLimitStateSchema),
});

export function presentSocialAccountDetail(
  detail: SocialAccountDetail,
): Static<typeof SocialAccountDetailSchema> {
  const state = detail.rateLimit;
  return {
    ...presentSocialAccount(detail.connection),
    rate_limit: state
      ? {
          limit: state.limit.count,
          window_seconds: state.limit.windowMs / 1_000,
          remaining: state.remaining,
          resets_at: state.resetsAt ? state.resetsAt.toISOString() : null,
          waiting: state.waiting,
          blocked_until: state.blockedUntil ? state.blockedUntil.toISOString() : null,
        }
      : null,
  };
}
