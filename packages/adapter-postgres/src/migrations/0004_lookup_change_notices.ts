/**
 * 0004_lookup_change_notices: every committed write to api_keys or social_accounts sends a
 * notice on the `social_publisher_lookups` channel (the table's name as payload).
 *
 * Processes on PostgreSQL keep the API-key and connection lookups in memory and empty them when
 * a notice arrives (lookup-cache.ts, lookup-listener.ts): a key revoked by one API instance, or
 * a connection a worker marked expired, is seen by every process within the time a notice
 * takes. Notices are sent at commit, so a rolled-back write sends none. Statement-level where
 * possible: one notice per statement, however many rows it changed (and PostgreSQL folds equal
 * notices of one transaction into one).
 *
 * One write is left out: an update of api_keys that changes only `last_used_at`. Every key in
 * use writes it once a minute, and a notice for each would empty every process's cache many
 * times a second once there are hundreds of keys; a cached `last_used_at` that is a little old
 * only means that process writes it again a minute later (authenticateApiKey).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

export const LOOKUP_CHANNEL = 'social_publisher_lookups';

/** The triggers this migration creates (the listener checks that they are there). */
export const LOOKUP_TRIGGERS = [
  {
    table: 'api_keys',
    trigger: 'api_keys_lookups_changed',
    when: 'AFTER INSERT OR DELETE OR TRUNCATE',
    each: 'STATEMENT',
  },
  {
    table: 'api_keys',
    trigger: 'api_keys_lookups_updated',
    // Row-level, for the WHEN: any column but last_used_at, columns added later included.
    when: 'AFTER UPDATE',
    each: `ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))`,
  },
  {
    table: 'social_accounts',
    trigger: 'social_accounts_lookups_changed',
    when: 'AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE',
    each: 'STATEMENT',
  },
] as const;

const up = [
  sql`
    CREATE FUNCTION social_publisher_lookups_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(LOOKUP_CHANNEL)}, TG_TABLE_NAME);
      RETURN NULL;
    END
    $$`,
  ...LOOKUP_TRIGGERS.map(
    ({ table, trigger, when, each }) => sql`
      CREATE TRIGGER ${sql.id(trigger)}
      ${sql.raw(when)} ON ${sql.table(table)}
      FOR EACH ${sql.raw(each)} EXECUTE FUNCTION social_publisher_lookups_changed()`,
  ),
];

const down = [
  ...LOOKUP_TRIGGERS.map(
    ({ table, trigger }) => sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)} ON ${sql.table(table)}`,
  ),
  sql`DROP FUNCTION IF EXISTS social_publisher_lookups_changed()`,
];

export const migration0004 = fromStatements(up, down);
