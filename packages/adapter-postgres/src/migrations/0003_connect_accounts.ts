/**
 * 0003_connect_accounts: connecting real accounts and sandbox connections (docs/connect.md).
 *
 * - oauth_states: connect flows in progress (only the state's SHA-256 is stored; single use).
 * - social_accounts: granted scopes, the sandbox flag, and a refresh lease so that two workers
 *   never renew the same (rotating) refresh token.
 * - post_targets.sandbox: what a target was promised when it was created.
 * - webhooks/deliveries: the `social_account.expired` event, whose deliveries have no post.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const EVENTS = sql.raw(
  `ARRAY['post.published', 'post.failed', 'post.partial', 'social_account.expired']::text[]`,
);

const up = [
  sql`
    CREATE TABLE oauth_states (
      id                        uuid PRIMARY KEY,
      state_hash                text NOT NULL UNIQUE CHECK (state_hash ~ '^[0-9a-f]{64}$'),
      account_id                uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      user_id                   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      platform                  text NOT NULL CHECK (platform ~ '^[a-z][a-z0-9_]{0,31}$'),
      code_verifier_ciphertext  text NOT NULL,
      return_url                text CHECK (char_length(return_url) <= 2048),
      expires_at                timestamptz NOT NULL,
      created_at                timestamptz NOT NULL
    )`,
  sql`CREATE INDEX oauth_states_expires_at_idx ON oauth_states (expires_at)`,
  sql`ALTER TABLE social_accounts ADD COLUMN scopes text[] NOT NULL DEFAULT '{}'`,
  sql`ALTER TABLE social_accounts ADD COLUMN sandbox boolean NOT NULL DEFAULT false`,
  sql`ALTER TABLE social_accounts ADD COLUMN refresh_lease_until timestamptz`,
  sql`
    CREATE INDEX social_accounts_token_expires_at_idx ON social_accounts (token_expires_at)
      WHERE status = 'active' AND NOT sandbox AND token_expires_at IS NOT NULL`,
  sql`ALTER TABLE post_targets ADD COLUMN sandbox boolean NOT NULL DEFAULT false`,
  sql`ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_events_check`,
  sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check
        CHECK (cardinality(events) >= 1 AND events <@ ${EVENTS})`,
  sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_event_check`,
  sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_check
        CHECK (event = ANY (${EVENTS}))`,
  sql`ALTER TABLE webhook_deliveries ALTER COLUMN post_id DROP NOT NULL`,
  sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_post_event
        CHECK ((post_id IS NULL) = (event = 'social_account.expired'))`,
];

const down = [
  sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_post_event`,
  sql`DELETE FROM webhook_deliveries WHERE post_id IS NULL`,
  sql`ALTER TABLE webhook_deliveries ALTER COLUMN post_id SET NOT NULL`,
  sql`ALTER TABLE post_targets DROP COLUMN IF EXISTS sandbox`,
  sql`DROP INDEX IF EXISTS social_accounts_token_expires_at_idx`,
  sql`ALTER TABLE social_accounts DROP COLUMN IF EXISTS refresh_lease_until`,
  sql`ALTER TABLE social_accounts DROP COLUMN IF EXISTS sandbox`,
  sql`ALTER TABLE social_accounts DROP COLUMN IF EXISTS scopes`,
  sql`DROP TABLE IF EXISTS oauth_states`,
];

export const migration0003 = fromStatements(up, down);
