/**
 * 0011_metrics: the numbers of published posts over time (docs: metrics over time).
 *
 * - metric_tracks: one row per published target, created by the completion that published it
 *   (publish-run.ts). It holds the latest numbers, so "the latest per target" never scans the
 *   history and a day's total is a plain SUM, and when the next read is due. The target's
 *   facts (post, account, connection, platform ids, publication time) are copied: the read
 *   pass and the daily sums need no join.
 * - metric_snapshots: every read, append-only, deleted only by the retention sweep.
 *
 * Each metric is a bigint that stays NULL when the platform does not report it (never 0).
 *
 * The backfill gives every target published before this migration a `pending` track with
 * step 0 and no due time. The refresh schedule (METRICS_REFRESH_SCHEDULE) is configuration
 * the SQL cannot see, so the step a post has reached is unknown here; and making them all due
 * would send the first read pass after the upgrade to every old post at once, against the
 * platforms' rate limits. They are read when someone asks (requestRefresh sets a due time);
 * step 0 is safe then, since the schedule skips the offsets already behind a post.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';
import { backfillTracks, trackColumns } from './read-tracks.ts';

/** The nine metric columns (MetricValues): each a count, or NULL for "not reported". */
const metricColumns = sql.raw(
  ['views', 'impressions', 'reach', 'likes', 'comments', 'shares', 'quotes', 'saves', 'clicks']
    .map((name) => `${name} bigint CHECK (${name} >= 0)`)
    .join(',\n      '),
);

const up = [
  sql`
    CREATE TABLE metric_tracks (
      ${trackColumns(['pending', 'fresh', 'stale', 'unavailable', 'gone'])},
      taken_at           timestamptz,
      ${metricColumns},
      error              text
    )`,
  // The read pass's claim: only the due rows are in it, so finding them costs what they cost,
  // however many tracks have finished their schedule (due_at NULL). target_id: the claim's
  // tie-break, so the index gives its order without a sort.
  sql`CREATE INDEX metric_tracks_due_at_idx ON metric_tracks (due_at, target_id)
        WHERE due_at IS NOT NULL`,
  // A post's tracks (GET /posts/:id/metrics, the refresh request).
  sql`CREATE INDEX metric_tracks_post_id_idx ON metric_tracks (post_id)`,
  // The daily sums of an account (one connection's too: its rows are a filter on the
  // account's; an index of its own would cost every claim and record one more index write).
  sql`CREATE INDEX metric_tracks_account_published_idx ON metric_tracks (account_id, published_at)`,
  sql`
    CREATE TABLE metric_snapshots (
      id         uuid PRIMARY KEY,
      target_id  uuid NOT NULL REFERENCES metric_tracks (target_id) ON DELETE CASCADE,
      taken_at   timestamptz NOT NULL,
      ${metricColumns},
      raw        jsonb NOT NULL CHECK (jsonb_typeof(raw) = 'object'),
      sandbox    boolean NOT NULL
    )`,
  // A target's history, oldest first, a page at a time (keyset on (taken_at, id)).
  sql`CREATE INDEX metric_snapshots_target_taken_idx ON metric_snapshots (target_id, taken_at, id)`,
  // The retention sweep. Snapshots are appended in time order, so a BRIN
  // index (one entry per block range) finds the old ones at almost no cost per insert.
  sql`CREATE INDEX metric_snapshots_taken_at_idx ON metric_snapshots USING brin (taken_at)`,
  backfillTracks('metric_tracks'),
];

const down = [sql`DROP TABLE IF EXISTS metric_snapshots`, sql`DROP TABLE IF EXISTS metric_tracks`];

export const migration0011 = fromStatements(up, down);
