/**
 * 0012_webhook_events_by_shape: webhook event columns stop listing the events.
 *
 * Which events exist is the domain's knowledge (WEBHOOK_EVENTS, checked when a webhook is
 * created); a CHECK listing them made every new event (post.metrics_updated, and the catalogue
 * after it) a schema change, as 0002 found for platform names. The columns keep a shape check
 * (`<topic>.<what>`, lowercase) as the last line of defence, and a delivery has no post exactly
 * when its event is about a connection (`social_account.*`).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const EVENT_SHAPE = `'^[a-z][a-z_]{0,31}(\\.[a-z][a-z_]{0,31}){1,2}$'`;

const up = [
  sql`ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_events_check`,
  sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_shape
        CHECK (cardinality(events) >= 1
               AND array_position(events, NULL) IS NULL
               AND array_to_string(events, ' ') ~ ${sql.raw(`'^([a-z][a-z_]{0,31}(\\.[a-z][a-z_]{0,31}){1,2})( [a-z][a-z_]{0,31}(\\.[a-z][a-z_]{0,31}){1,2})*$'`)})`,
  sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_event_check`,
  sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_shape
        CHECK (event ~ ${sql.raw(EVENT_SHAPE)})`,
  sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_post_event`,
  sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_post_event
        CHECK ((post_id IS NULL) = (event LIKE 'social\\_account.%'))`,
];

// Going back keeps only the shape checks: the old list cannot be known to cover the rows.
const down = [
  sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_post_event`,
  sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_post_event
        CHECK ((post_id IS NULL) = (event = 'social_account.expired'))`,
];

export const migration0012 = fromStatements(up, down);
