/**
 * 0013_webhook_filters_and_auto_disable: what the event catalogue asks of a webhook.
 *
 * - social_account_ids: only events about these connections reach the webhook (NULL: every
 *   event of the account it subscribed to). No foreign key: a connection deleted later stays
 *   named, so the webhook still receives its `social_account.disconnected`.
 * - disabled_reason: why the service turned the webhook off (auto-disable, 410 Gone); only on
 *   an inactive webhook.
 * - failing_since: the first failed attempt after a delivered one; auto-disable counts from it.
 *
 * Existing webhooks keep receiving what they did: no filter, no reason, no failing streak.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`ALTER TABLE webhooks
        ADD COLUMN social_account_ids uuid[],
        ADD COLUMN disabled_reason text,
        ADD COLUMN failing_since timestamptz`,
  sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_social_account_ids_size
        CHECK (social_account_ids IS NULL
               OR (cardinality(social_account_ids) BETWEEN 1 AND 100
                   AND array_position(social_account_ids, NULL) IS NULL))`,
  sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_disabled_reason_inactive
        CHECK (disabled_reason IS NULL OR NOT active)`,
];

const down = [
  sql`ALTER TABLE webhooks
        DROP COLUMN IF EXISTS social_account_ids,
        DROP COLUMN IF EXISTS disabled_reason,
        DROP COLUMN IF EXISTS failing_since`,
];

export const migration0013 = fromStatements(up, down);
