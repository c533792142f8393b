/**
 * 0020_webhook_change_notices: committed writes to `webhooks` send a change notice too, so the
 * lookup cache can keep each account's active webhooks (lookup-cache.ts).
 *
 * Every create stores its `post.created` deliveries, which needs the account's webhooks
 * subscribed to it: a query per create (one in three of a create's statements) for rows that
 * change a few times a month. Kept in memory, the cache must be emptied in every process when
 * one changes, as for API keys and connections (0004_lookup_change_notices).
 *
 * One write is left out, as 0004 leaves out a key's last-used time: an update of `webhooks`
 * that changes only `failing_since`. Every delivery attempt may write it, and a notice for each
 * would empty every process's cache as often as deliveries fail; nothing a lookup returns for
 * choosing receivers depends on it.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

/** The triggers this migration creates (the listener checks that they are there). */
export const WEBHOOK_LOOKUP_TRIGGERS = [
  {
    table: 'webhooks',
    trigger: 'webhooks_lookups_changed',
    when: 'AFTER INSERT OR DELETE OR TRUNCATE',
    each: 'STATEMENT',
  },
  {
    table: 'webhooks',
    trigger: 'webhooks_lookups_updated',
    // Row-level, for the WHEN: any column but failing_since, columns added later included.
    when: 'AFTER UPDATE',
    each: `ROW WHEN ((to_jsonb(OLD) - 'failing_since') IS DISTINCT FROM (to_jsonb(NEW) - 'failing_since'))`,
  },
] as const;

const up = WEBHOOK_LOOKUP_TRIGGERS.map(
  ({ table, trigger, when, each }) => sql`
    CREATE TRIGGER ${sql.id(trigger)}
    ${sql.raw(when)} ON ${sql.table(table)}
    FOR EACH ${sql.raw(each)} EXECUTE FUNCTION social_publisher_lookups_changed()`,
);

const down = WEBHOOK_LOOKUP_TRIGGERS.map(
  ({ table, trigger }) => sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)} ON ${sql.table(table)}`,
);

export const migration0020 = fromStatements(up, down);
