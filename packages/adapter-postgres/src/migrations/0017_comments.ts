/**
 * 0017_comments: the comments under published posts, read on a decaying schedule, and the
 * replies sent to them (docs: comments and the inbox).
 *
 * - comment_tracks: one row per published target, created by the completion that published it
 *   (publish-run.ts), like metric_tracks: when its comments are read next. The claim is the
 *   metrics one (repositories/due-claim.ts): a partial index on the due rows, FOR UPDATE SKIP
 *   LOCKED and a lease.
 * - comments: each comment once per (target, platform comment id): the unique key is what makes
 *   a comment read twice (two workers, a read and our own reply) stored and announced once.
 * - comment_replies: a reply recorded with its Idempotency-Key BEFORE the platform call (state
 *   `sending`), its platform id after: a request that dies in between is looked up on the
 *   platform when asked again, never sent twice.
 *
 * The backfill gives every target already published a pending track with no due time: read
 * when someone asks (POST /posts/:id/comments/refresh), as 0011 does for numbers.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';
import { backfillTracks, trackColumns } from './read-tracks.ts';

const up = [
  sql`
    CREATE TABLE comment_tracks (
      ${trackColumns(['pending', 'fresh', 'stale', 'unsupported', 'gone'])},
      read_at            timestamptz,
      error              text
    )`,
  // The read pass's claim (only the due rows), with its tie-break.
  sql`CREATE INDEX comment_tracks_due_at_idx ON comment_tracks (due_at, target_id)
        WHERE due_at IS NOT NULL`,
  sql`CREATE INDEX comment_tracks_post_id_idx ON comment_tracks (post_id)`,
  sql`
    CREATE TABLE comments (
      id                   uuid PRIMARY KEY,
      account_id           uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      post_id              uuid NOT NULL,
      target_id            uuid NOT NULL REFERENCES post_targets (id) ON DELETE CASCADE,
      social_account_id    uuid NOT NULL,
      platform             text NOT NULL,
      platform_comment_id  text NOT NULL,
      parent_platform_id   text,
      author_id            text NOT NULL,
      author_name          text,
      author_handle        text,
      text                 text NOT NULL,
      created_at           timestamptz NOT NULL,
      hidden               boolean NOT NULL,
      mine                 boolean NOT NULL,
      read                 boolean NOT NULL,
      received_at          timestamptz NOT NULL,
      sandbox              boolean NOT NULL,
      UNIQUE (target_id, platform_comment_id)
    )`,
  // A post's comments, newest first (GET /posts/:id/comments, keyset on (created_at, id)).
  sql`CREATE INDEX comments_post_created_idx ON comments (post_id, created_at DESC, id DESC)`,
  // The inbox of an account, newest first; the unread ones by a partial index of their own.
  sql`CREATE INDEX comments_account_created_idx ON comments (account_id, created_at DESC, id DESC)`,
  sql`CREATE INDEX comments_account_unread_idx ON comments (account_id, created_at DESC, id DESC)
        WHERE NOT read`,
  sql`
    CREATE TABLE comment_replies (
      id                   uuid PRIMARY KEY,
      account_id           uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      comment_id           uuid NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
      idempotency_key      text NOT NULL,
      text                 text NOT NULL,
      state                text NOT NULL
                           CHECK (state IN ('sending', 'sent', 'failed', 'outcome_unknown')),
      intent_at            timestamptz NOT NULL,
      platform_comment_id  text,
      reply_comment_id     uuid REFERENCES comments (id) ON DELETE SET NULL,
      error                text,
      UNIQUE (account_id, idempotency_key)
    )`,
  sql`CREATE INDEX comment_replies_comment_id_idx ON comment_replies (comment_id)`,
  sql`CREATE INDEX comment_replies_reply_comment_id_idx ON comment_replies (reply_comment_id)`,
  backfillTracks('comment_tracks'),
];

const down = [
  sql`DROP TABLE IF EXISTS comment_replies`,
  sql`DROP TABLE IF EXISTS comments`,
  sql`DROP TABLE IF EXISTS comment_tracks`,
];

export const migration0017 = fromStatements(up, down);
