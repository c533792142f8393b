/**
 * Published posts with their metric tracks, seeded with set-based SQL (generate_series), so a
 * million rows take seconds, not the publish pipeline's hours. Each post has one published
 * target and its track, as the publish path leaves them.
 */
import type { Database } from '@social-publisher/adapter-postgres';
import { type Kysely, sql } from 'kysely';

export interface TrackSeed {
  accountId: string;
  userId: string;
  socialAccountId: string;
  platform: string;
  sandbox: boolean;
  /** Tracks whose read is due now (due_at in the last minute). */
  due: number;
  /**
   * Tracks not due: 70 % with a read due later (within 30 days), 30 % with their schedule
   * over (due_at null), as a deployment a month old holds them.
   */
  notDue: number;
  /** platform_post_id of row n: `${idPrefix}${n}`. */
  idPrefix: string;
  /** When the due tracks are due (default: now, give or take a minute). */
  dueAt?: Date;
}

const CHUNK = 100_000;

/** Inserts `count` posts, targets and tracks; `dueSql` gives each row's due_at from `n`. */
async function insertChunk(
  db: Kysely<Database>,
  seed: TrackSeed,
  first: number,
  count: number,
  dueSql: ReturnType<typeof sql>,
): Promise<void> {
  await sql`
    with rows as (
      select n, gen_random_uuid() as post_id, gen_random_uuid() as target_id,
             now() - interval '1 day' - (n % 1000) * interval '1 minute' as published_at
      from generate_series(${first}::int, ${first + count - 1}::int) as n
    ), posts_in as (
      insert into posts (id, account_id, created_by, content, status, created_at, updated_at)
      select post_id, ${seed.accountId}::uuid, ${seed.userId}::uuid, 'bench ' || n, 'published',
             published_at, published_at
      from rows
    ), targets_in as (
      insert into post_targets (id, post_id, position, platform, social_account_id, status,
                                platform_post_id, published_at, updated_at, sandbox)
      select target_id, post_id, 0, ${seed.platform}, ${seed.socialAccountId}::uuid, 'published',
             ${seed.idPrefix} || n, published_at, published_at, ${seed.sandbox}
      from rows
    )
    insert into metric_tracks (target_id, post_id, account_id, social_account_id, platform,
                               platform_post_id, published_at, sandbox, state, step, due_at)
    select target_id, post_id, ${seed.accountId}::uuid, ${seed.socialAccountId}::uuid,
           ${seed.platform}, ${seed.idPrefix} || n, published_at, ${seed.sandbox}, 'pending', 0,
           ${dueSql}
    from rows`.execute(db);
}

/** Seeds the due tracks first, then the others, in chunks of 100,000 rows. */
export async function seedTracks(db: Kysely<Database>, seed: TrackSeed): Promise<void> {
  const due = seed.dueAt
    ? sql`${seed.dueAt}::timestamptz - (n % 60) * interval '1 millisecond'`
    : sql`now() - (n % 60) * interval '1 second'`;
  const later = sql`case when n % 10 < 7 then now() + (n % 43200) * interval '1 minute' end`;
  for (let first = 1; first <= seed.due; first += CHUNK) {
    await insertChunk(db, seed, first, Math.min(CHUNK, seed.due - first + 1), due);
  }
  const start = seed.due + 1;
  const end = seed.due + seed.notDue;
  for (let first = start; first <= end; first += CHUNK) {
    await insertChunk(db, seed, first, Math.min(CHUNK, end - first + 1), later);
  }
  // Settled as a database that has run a while would be: vacuumed, its dirty pages written.
  await sql`vacuum analyze metric_tracks`.execute(db);
  await sql`checkpoint`.execute(db);
}
