/**
 * 0004_lookup_change_notices: every committed write to api_keys or social_accounts sends a
 * notice on the `social_publisher_lookups` channel (the table's name as payload).
 *
 * Processes on PostgreSQL keep the API-key and connection lookups in memory and empty them when
 * a notice arrives (lookup-cache.ts, lookup-listener.ts): a key revoked by one API instance, or
 * a connection a worker marked expired, is seen by every process within the time a notice
 * takes. Notices are sent at commit, so a rolled-back write sends none. Statement-level: one
 * notice per statement, however many rows it changed (and PostgreSQL folds equal notices of
 * one transaction into one).
 */
import { type Kysely, sql } from 'kysely';

export const LOOKUP_CHANNEL = 'social_publisher_lookups';

const TABLES = ['api_keys', 'social_accounts'] as const;

/** The triggers this migration creates (the listener checks that they are there). */
export const LOOKUP_TRIGGERS = TABLES.map((table) => ({
  table,
  trigger: `${table}_lookups_changed`,
}));

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
    ({ table, trigger }) => sql`
      CREATE TRIGGER ${sql.id(trigger)}
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION social_publisher_lookups_changed()`,
  ),
];

const down = [
  ...LOOKUP_TRIGGERS.map(
    ({ table, trigger }) => sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)} ON ${sql.table(table)}`,
  ),
  sql`DROP FUNCTION IF EXISTS social_publisher_lookups_changed()`,
];

export const migration0004 = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of up) await statement.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const statement of down) await statement.execute(db);
  },
};
