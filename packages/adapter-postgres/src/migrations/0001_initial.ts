/**
 * 0001_initial: the whole schema of the first release.
 *
 * One SQL statement per entry (PGlite runs each through the extended protocol, which takes a
 * single statement). CHECK constraints mirror the domain's limits (packages/domain/src/model.ts
 * and docs/api.md#limits); the domain validates first, these are the last line of defence.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`
    CREATE TABLE users (
      id                uuid PRIMARY KEY,
      email             text UNIQUE CHECK (char_length(email) BETWEEN 1 AND 320),
      external_subject  text UNIQUE CHECK (char_length(external_subject) BETWEEN 1 AND 1000),
      created_at        timestamptz NOT NULL
    )`,

  // A personal account has the id of its user; a team account is a workspace.
  sql`
    CREATE TABLE accounts (
      id          uuid PRIMARY KEY,
      kind        text NOT NULL CHECK (kind IN ('personal', 'team')),
      name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 320),
      created_at  timestamptz NOT NULL,
      CONSTRAINT accounts_team_name_length CHECK (kind <> 'team' OR char_length(name) <= 100)
    )`,

  sql`
    CREATE TABLE memberships (
      account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at  timestamptz NOT NULL,
      PRIMARY KEY (account_id, user_id)
    )`,
  sql`CREATE INDEX memberships_user_id_idx ON memberships (user_id)`,

  // Only the SHA-256 hex of the raw key is stored; there is no column for the raw key.
  sql`
    CREATE TABLE api_keys (
      id            uuid PRIMARY KEY,
      account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_by    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      key_hash      text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
      key_prefix    text NOT NULL CHECK (char_length(key_prefix) BETWEEN 1 AND 16),
      created_at    timestamptz NOT NULL,
      last_used_at  timestamptz
    )`,
  sql`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id, created_at)`,

  // Tokens arrive as TokenCipher output (AES-256-GCM with its nonce); never plaintext.
  sql`
    CREATE TABLE social_accounts (
      id                        uuid PRIMARY KEY,
      account_id                uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      platform                  text NOT NULL CHECK (platform IN
                                  ('tiktok', 'instagram', 'youtube', 'twitter', 'linkedin', 'facebook')),
      external_id               text NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 200),
      display_name              text,
      access_token_ciphertext   text NOT NULL CHECK (access_token_ciphertext <> ''),
      refresh_token_ciphertext  text CHECK (refresh_token_ciphertext <> ''),
      token_expires_at          timestamptz,
      status                    text NOT NULL CHECK (status IN ('active', 'expired', 'revoked')),
      created_at                timestamptz NOT NULL,
      updated_at                timestamptz NOT NULL
    )`,
  sql`
    CREATE INDEX social_accounts_account_platform_idx
      ON social_accounts (account_id, platform, created_at DESC)`,

  sql`
    CREATE TABLE posts (
      id                uuid PRIMARY KEY,
      account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_by        uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
      content           text NOT NULL DEFAULT '' CHECK (char_length(content) <= 5000),
      media_urls        text[] NOT NULL DEFAULT '{}',
      platform_options  jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(platform_options) = 'object'),
      scheduled_at      timestamptz,
      status            text NOT NULL CHECK (status IN
                          ('scheduled', 'queued', 'publishing', 'published', 'partial', 'failed', 'cancelled')),
      created_at        timestamptz NOT NULL,
      updated_at        timestamptz NOT NULL
    )`,
  // GET /posts: the creator's posts, newest first.
  sql`CREATE INDEX posts_created_by_created_at_idx ON posts (created_by, created_at DESC, id DESC)`,
  // The reconciler: posts that are not done yet, by due time.
  sql`
    CREATE INDEX posts_due_idx ON posts (status, scheduled_at)
      WHERE status IN ('scheduled', 'queued', 'publishing')`,

  // social_account_id has no foreign key on purpose: deleting a connection keeps the
  // history of the posts published through it (see README, "Foreign keys").
  sql`
    CREATE TABLE post_targets (
      id                 uuid PRIMARY KEY,
      post_id            uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
      position           integer NOT NULL CHECK (position >= 0),
      platform           text NOT NULL CHECK (platform IN
                           ('tiktok', 'instagram', 'youtube', 'twitter', 'linkedin', 'facebook')),
      social_account_id  uuid NOT NULL,
      status             text NOT NULL CHECK (status IN
                           ('pending', 'publishing', 'published', 'failed', 'cancelled')),
      attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      error_code         text,
      error_message      text,
      retryable          boolean,
      platform_post_id   text,
      platform_url       text,
      resume_state       jsonb CHECK (jsonb_typeof(resume_state) = 'object'),
      lease_expires_at   timestamptz,
      published_at       timestamptz,
      updated_at         timestamptz NOT NULL,
      CONSTRAINT post_targets_publishing_has_lease
        CHECK (status <> 'publishing' OR lease_expires_at IS NOT NULL)
    )`,
  sql`CREATE INDEX post_targets_post_id_idx ON post_targets (post_id, position)`,
  sql`
    CREATE INDEX post_targets_expired_lease_idx ON post_targets (status, lease_expires_at)
      WHERE status = 'publishing'`,

  sql`
    CREATE TABLE webhooks (
      id          uuid PRIMARY KEY,
      account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_by  uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
      url         text NOT NULL CHECK (url ~* '^https?://' AND char_length(url) <= 2048),
      events      text[] NOT NULL CHECK (
                    cardinality(events) >= 1
                    AND events <@ ARRAY['post.published', 'post.failed', 'post.partial']::text[]),
      active      boolean NOT NULL DEFAULT true,
      secret      text NOT NULL CHECK (left(secret, 6) = 'whsec_'),
      created_at  timestamptz NOT NULL
    )`,
  sql`CREATE INDEX webhooks_account_id_idx ON webhooks (account_id, created_at)`,

  // payload is TEXT, not jsonb: it holds the exact bytes that were signed.
  sql`
    CREATE TABLE webhook_deliveries (
      id                uuid PRIMARY KEY,
      webhook_id        uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      post_id           uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
      event             text NOT NULL CHECK (event IN ('post.published', 'post.failed', 'post.partial')),
      payload           text NOT NULL,
      status            text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_status_code  integer,
      last_error        text,
      next_attempt_at   timestamptz,
      delivered_at      timestamptz,
      created_at        timestamptz NOT NULL
    )`,
  sql`
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_at)
      WHERE status = 'pending'`,
  sql`
    CREATE INDEX webhook_deliveries_webhook_idx
      ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`,
  sql`CREATE INDEX webhook_deliveries_post_id_idx ON webhook_deliveries (post_id)`,

  sql`
    CREATE TABLE webhook_delivery_attempts (
      id           uuid PRIMARY KEY,
      delivery_id  uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt_no   integer NOT NULL CHECK (attempt_no >= 1),
      status_code  integer,
      error        text,
      duration_ms  integer NOT NULL CHECK (duration_ms >= 0),
      created_at   timestamptz NOT NULL
    )`,
  sql`
    CREATE INDEX webhook_delivery_attempts_delivery_idx
      ON webhook_delivery_attempts (delivery_id, created_at, attempt_no)`,

  // Stored replies for the Idempotency-Key header of the HTTP layer.
  sql`
    CREATE TABLE idempotency_keys (
      scope          text NOT NULL,
      key            text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
      request_hash   text NOT NULL,
      status_code    integer NOT NULL CHECK (status_code BETWEEN 100 AND 599),
      response_body  text NOT NULL,
      created_at     timestamptz NOT NULL,
      expires_at     timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    )`,
  sql`CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`,
];

const down = [
  sql`DROP TABLE IF EXISTS idempotency_keys`,
  sql`DROP TABLE IF EXISTS webhook_delivery_attempts`,
  sql`DROP TABLE IF EXISTS webhook_deliveries`,
  sql`DROP TABLE IF EXISTS webhooks`,
  sql`DROP TABLE IF EXISTS post_targets`,
  sql`DROP TABLE IF EXISTS posts`,
  sql`DROP TABLE IF EXISTS social_accounts`,
  sql`DROP TABLE IF EXISTS api_keys`,
  sql`DROP TABLE IF EXISTS memberships`,
  sql`DROP TABLE IF EXISTS accounts`,
  sql`DROP TABLE IF EXISTS users`,
];

export const migration0001 = fromStatements(up, down);
