/**
 * 0009_media: hosted media (POST /media) and which posts use them. A media row lives until the
 * sweeper deletes it: `expires_at` is null while an unfinished post uses it (post_media), and
 * is set again once they are all finished.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`
    CREATE TABLE media (
      id            uuid PRIMARY KEY,
      account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_by    uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
      name          text NOT NULL UNIQUE,
      content_type  text NOT NULL,
      size          bigint NOT NULL CHECK (size >= 0),
      sha256        text NOT NULL,
      filename      text,
      created_at    timestamptz NOT NULL,
      expires_at    timestamptz
    )`,
  // GET /media: an account's media, newest first.
  sql`CREATE INDEX media_account_created_at_idx ON media (account_id, created_at DESC, id DESC)`,
  // The sweeper: expired ones, and those waiting for an expiry.
  sql`CREATE INDEX media_expires_at_idx ON media (expires_at)`,
  sql`
    CREATE TABLE post_media (
      post_id   uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
      media_id  uuid NOT NULL REFERENCES media (id) ON DELETE CASCADE,
      PRIMARY KEY (post_id, media_id)
    )`,
  sql`CREATE INDEX post_media_media_id_idx ON post_media (media_id)`,
];

const down = [sql`DROP TABLE IF EXISTS post_media`, sql`DROP TABLE IF EXISTS media`];

export const migration0009 = fromStatements(up, down);
