/**
 * 0007_post_series_and_slots: repeating posts and posting slots.
 *
 * post_series holds the rule and the template of its occurrences; post_series_occurrences has
 * one row per occurrence that has its post, and its primary key (series, occurrence time) is
 * what lets several workers extend a series at once without creating an occurrence twice.
 * social_account_slots holds a connection's weekly slots (a JSON array of { day, time }).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`
    CREATE TABLE post_series (
      id           uuid PRIMARY KEY,
      account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_by   uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
      rrule        text NOT NULL CHECK (char_length(rrule) BETWEEN 1 AND 500),
      timezone     text NOT NULL CHECK (char_length(timezone) BETWEEN 1 AND 100),
      count        integer CHECK (count >= 1),
      until        timestamptz,
      first_at     timestamptz NOT NULL,
      template     jsonb NOT NULL CHECK (jsonb_typeof(template) = 'object'),
      status       text NOT NULL CHECK (status IN ('active', 'stopped', 'finished')),
      created_at   timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL,
      CONSTRAINT post_series_count_or_until CHECK (count IS NULL OR until IS NULL)
    )`,
  sql`CREATE INDEX post_series_active_idx ON post_series (status) WHERE status = 'active'`,

  sql`
    CREATE TABLE post_series_occurrences (
      series_id      uuid NOT NULL REFERENCES post_series (id) ON DELETE CASCADE,
      occurrence_at  timestamptz NOT NULL,
      post_id        uuid NOT NULL,
      PRIMARY KEY (series_id, occurrence_at)
    )`,

  sql`ALTER TABLE posts ADD COLUMN series_id uuid REFERENCES post_series (id) ON DELETE SET NULL`,
  sql`CREATE INDEX posts_series_id_idx ON posts (series_id) WHERE series_id IS NOT NULL`,

  sql`
    CREATE TABLE social_account_slots (
      social_account_id  uuid PRIMARY KEY REFERENCES social_accounts (id) ON DELETE CASCADE,
      timezone           text NOT NULL CHECK (char_length(timezone) BETWEEN 1 AND 100),
      slots              jsonb NOT NULL CHECK (jsonb_typeof(slots) = 'array'),
      updated_at         timestamptz NOT NULL
    )`,
  // POST /posts/queue: the scheduled times of a connection's posts.
  sql`CREATE INDEX post_targets_social_account_idx ON post_targets (social_account_id)`,
];

const down = [
  sql`DROP INDEX IF EXISTS post_targets_social_account_idx`,
  sql`DROP TABLE IF EXISTS social_account_slots`,
  sql`ALTER TABLE posts DROP COLUMN IF EXISTS series_id`,
  sql`DROP TABLE IF EXISTS post_series_occurrences`,
  sql`DROP TABLE IF EXISTS post_series`,
];

export const migration0007 = fromStatements(up, down);
