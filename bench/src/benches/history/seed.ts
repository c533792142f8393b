/**
 * A year of history, seeded with set-based SQL (generate_series) in chunks, so that 10^7
 * targets take minutes, not the pipeline's days. The database grows in steps: each call adds
 * rows up to the asked number of targets.
 *
 * Shape of what a busy deployment holds after a year (per post; two targets each):
 * - 1 in 10 posts is the measured user's (the rest belong to `otherAccounts` accounts);
 * - 96 % finished (published 90 %, failed 4 %, partial 1 %, cancelled 1 %), 2 % scheduled up to
 *   a year ahead, 2 % published with a metric read still due;
 * - created over the past year, oldest first; every published target has its metric track;
 * - one delivered webhook delivery per two of the measured user's posts; the idempotency
 *   records a day of creates leaves (older ones expired and swept): 1 per 365 posts.
 */
import { execFile } from 'node:child_process';
import type { Database } from '@social-publisher/adapter-postgres';
import { type Kysely, sql } from 'kysely';

const CHUNK_POSTS = 50_000;
const YEAR_SECONDS = 365 * 86_400;

export interface HistoryShape {
  /** The measured user and their personal account. */
  userId: string;
  accountId: string;
  /** Their sandbox twitter and linkedin connections (the targets of every seeded post). */
  connectionIds: readonly [string, string];
  /** A webhook of the measured account (the deliveries' owner). */
  webhookId: string;
  /** Other accounts whose posts make up nine in ten: ids of users = accounts. */
  otherAccounts: readonly string[];
  /** The seeding clock: "now" of the seeded year. */
  now: Date;
}

/** Inserts posts `first`..`last` (1-based across all steps) with targets, tracks, deliveries. */
async function insertChunk(db: Kysely<Database>, shape: HistoryShape, first: number, last: number) {
  const others = shape.otherAccounts;
  await sql`
    with rows as (
      select n,
             gen_random_uuid() as post_id,
             case when n % 10 = 0 then ${shape.accountId}::uuid
                  else (${others}::uuid[])[1 + n % ${others.length}] end as account_id,
             ${shape.now}::timestamptz - ${YEAR_SECONDS}::int * interval '1 second'
               + (n::bigint * 997 % ${YEAR_SECONDS}) * interval '1 second' as created_at,
             case when n % 100 < 90 then 'published' when n % 100 < 94 then 'failed'
                  when n % 100 < 95 then 'partial' when n % 100 < 96 then 'cancelled'
                  when n % 100 < 98 then 'scheduled' else 'published' end as status
      from generate_series(${first}::int, ${last}::int) as n
    ), posts_in as (
      insert into posts (id, account_id, created_by, content, media_urls, status, scheduled_at,
                         created_at, updated_at)
      select post_id, account_id, account_id, 'History post ' || n || ' https://example.com/' || n,
             '{}', status,
             case when status = 'scheduled'
                  then ${shape.now}::timestamptz + (1 + n % 365) * interval '1 day' end,
             created_at, created_at + interval '2 seconds'
      from rows
    ), targets_in as (
      insert into post_targets (id, post_id, position, platform, social_account_id, status,
                                attempts, platform_post_id, published_at, updated_at, sandbox)
      select gen_random_uuid(), post_id, t.position, (array['twitter','linkedin'])[t.position + 1],
             (${shape.connectionIds}::uuid[])[t.position + 1],
             case when status = 'scheduled' then 'pending'
                  when status = 'partial' and t.position = 1 then 'failed'
                  when status = 'partial' then 'published'
                  else status end,
             case when status = 'scheduled' then 0 else 1 end,
             case when status in ('published', 'partial') then 'sandbox-' || post_id || '-' || t.position end,
             case when status in ('published', 'partial') then created_at + interval '1 second' end,
             created_at + interval '2 seconds', true
      from rows cross join generate_series(0, 1) as t(position)
      returning id, post_id, platform, social_account_id, status, platform_post_id, published_at
    ), tracks_in as (
      insert into metric_tracks (target_id, post_id, account_id, social_account_id, platform,
                                 platform_post_id, published_at, sandbox, state, step, due_at)
      select t.id, t.post_id, r.account_id, t.social_account_id, t.platform,
             t.platform_post_id, t.published_at, true, 'fresh', 6,
             case when t.published_at > ${shape.now}::timestamptz - interval '30 days'
                  then ${shape.now}::timestamptz + interval '1 day' end
      from targets_in t join rows r on r.post_id = t.post_id where t.status = 'published'
    ), deliveries_in as (
      insert into webhook_deliveries (id, webhook_id, account_id, post_id, event, payload, status,
                                      attempts, next_attempt_at, delivered_at, created_at)
      select gen_random_uuid(), ${shape.webhookId}::uuid, ${shape.accountId}::uuid, post_id,
             'post.published', '{"event":"post.published"}', 'delivered', 1, null,
             created_at + interval '3 seconds', created_at + interval '2 seconds'
      from rows where n % 2 = 0 and account_id = ${shape.accountId}::uuid
    )
    insert into idempotency_keys (scope, key, request_hash, status_code, response_body,
                                  created_at, expires_at)
    select 'history:' || account_id, 'key-' || n, 'hash', 201, '{}', created_at,
           case when n % 365 = 0 then ${shape.now}::timestamptz + interval '1 day'
                else created_at + interval '1 day' end
    from rows where n % 365 = 0`.execute(db);
}

/** How long the machine rests after the largest seed before anything is measured. */
const SETTLE_MAX_MS = 60_000;

/** Adds posts until the database holds `targets` seeded targets (two per post). */
export async function growHistory(
  db: Kysely<Database>,
  shape: HistoryShape,
  fromTargets: number,
  toTargets: number,
): Promise<void> {
  const firstPost = fromTargets / 2 + 1;
  const lastPost = toTargets / 2;
  for (let first = firstPost; first <= lastPost; first += CHUNK_POSTS) {
    await insertChunk(db, shape, first, Math.min(lastPost, first + CHUNK_POSTS - 1));
  }
  // As a database that has run a while would be: statistics current, dirty pages written.
  await sql`vacuum analyze`.execute(db);
  await sql`checkpoint`.execute(db);
  // A millisecond for every hundred targets seeded: a minute for the 10^7 step.
  await settle(Math.min(SETTLE_MAX_MS, (toTargets - fromTargets) / 100));
}

/**
 * Waits for the seed's writes to reach the disk (`sync`), then `ms`. Measured right after
 * the 10^7 seed, the API's young-generation collections took 15 ms each against 6 ms twenty
 * seconds later (same process, same calls), and every 49th list call paid one: the first
 * page's p99 doubled for a reason that is not its query. `sync` and 5 s were not enough.
 */
async function settle(ms: number): Promise<void> {
  await new Promise<void>((resolve) => execFile('sync', () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rows per table, for the report. */
export async function tableSizes(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ name: string; rows: string; size: string }>`
    select relname as name, reltuples::bigint::text as rows,
           pg_size_pretty(pg_total_relation_size(oid)) as size
    from pg_class
    where relname in ('posts', 'post_targets', 'metric_tracks', 'webhook_deliveries',
                      'idempotency_keys') and relkind = 'r'
    order by relname`.execute(db);
  return rows.map((row) => `${row.name} ${row.rows} rows ${row.size}`).join(', ');
}
