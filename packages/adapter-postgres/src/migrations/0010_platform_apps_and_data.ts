/**
 * 0010_platform_apps_and_data: what platforms without one central OAuth provider (Mastodon: every
 * instance is its own) need, kept generic (docs/connect.md#platform-extensions):
 *
 * - platform_apps: the app registered on each instance of a platform, found again by
 *   (platform, instance) and reused by every later connect; its client secret is encrypted like
 *   tokens. The unique key lets concurrent first connects converge on one app.
 * - social_accounts.platform_data: non-secret facts a connector learnt about a connection (its
 *   instance, that instance's post length), read by the publisher and the post rules.
 * - oauth_states.connect_params: what a connector prepared when the flow started (the instance,
 *   the app's client id), handed to the consent URL and the code exchange.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`CREATE TABLE platform_apps (
        id uuid PRIMARY KEY,
        platform text NOT NULL,
        instance text NOT NULL,
        client_id text NOT NULL,
        client_secret_ciphertext text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (platform, instance)
      )`,
  sql`ALTER TABLE social_accounts ADD COLUMN platform_data jsonb
        CHECK (platform_data IS NULL OR jsonb_typeof(platform_data) = 'object')`,
  sql`ALTER TABLE oauth_states ADD COLUMN connect_params jsonb
        CHECK (connect_params IS NULL OR jsonb_typeof(connect_params) = 'object')`,
];

const down = [
  sql`ALTER TABLE oauth_states DROP COLUMN IF EXISTS connect_params`,
  sql`ALTER TABLE social_accounts DROP COLUMN IF EXISTS platform_data`,
  sql`DROP TABLE IF EXISTS platform_apps`,
];

export const migration0010 = fromStatements(up, down);
