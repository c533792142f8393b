/**
 * What the two tables of followed targets share (metric_tracks in 0011, comment_tracks in
 * 0017): their leading columns and the backfill of the targets published before them. Released
 * migrations are built from these, so their text is frozen: every database already ran it. A
 * change is a new migration, never an edit here.
 */
import { type RawBuilder, sql } from 'kysely';

/** The columns from target_id to due_at, `state` checked against `states`. */
export function trackColumns(states: readonly string[]): RawBuilder<unknown> {
  const stateList = states.map((state) => `'${state}'`).join(', ');
  return sql.raw(
    [
      'target_id          uuid PRIMARY KEY REFERENCES post_targets (id) ON DELETE CASCADE',
      'post_id            uuid NOT NULL',
      'account_id         uuid NOT NULL',
      'social_account_id  uuid NOT NULL',
      'platform           text NOT NULL',
      'platform_post_id   text NOT NULL',
      'published_at       timestamptz NOT NULL',
      'sandbox            boolean NOT NULL',
      `state              text NOT NULL\n                         CHECK (state IN (${stateList}))`,
      'step               integer NOT NULL CHECK (step >= 0)',
      'due_at             timestamptz',
    ].join(',\n      '),
  );
}

/**
 * A `pending` track at step 0 with no due time for every target already published: read when
 * someone asks, never all at once on the first pass after the upgrade.
 */
export function backfillTracks(table: 'metric_tracks' | 'comment_tracks'): RawBuilder<unknown> {
  // The second line of the column list stands under its first.
  const under = ' '.repeat(`    INSERT INTO ${table} (`.length);
  return sql.raw(`
    INSERT INTO ${table} (target_id, post_id, account_id, social_account_id, platform,
${under}platform_post_id, published_at, sandbox, state, step)
    SELECT t.id, t.post_id, p.account_id, t.social_account_id, t.platform, t.platform_post_id,
           coalesce(t.published_at, t.updated_at), t.sandbox, 'pending', 0
    FROM post_targets t JOIN posts p ON p.id = t.post_id
    WHERE t.status = 'published' AND t.platform_post_id IS NOT NULL`);
}
