/**
 * 0019_reply_lookups: replies left `sending` by a request that died are settled by the worker
 * (settleAbandonedReplies), not only when their client asks again with the same key.
 *
 * - comment_replies.lookup_until: a look-up of this `sending` reply on the platform is under
 *   way until then (a retry's or a worker's); nobody else takes it meanwhile. NULL: never
 *   looked up. A holder that dies lets it go when the time passes.
 * - The sweep finds the abandoned ones, oldest intent first, by a partial index on the
 *   `sending` rows (a handful at any time, however many replies were ever sent).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`ALTER TABLE comment_replies ADD COLUMN lookup_until timestamptz`,
  sql`CREATE INDEX comment_replies_sending_idx ON comment_replies (intent_at, id)
        WHERE state = 'sending'`,
];

const down = [
  sql`DROP INDEX IF EXISTS comment_replies_sending_idx`,
  sql`ALTER TABLE comment_replies DROP COLUMN IF EXISTS lookup_until`,
];

export const migration0019 = fromStatements(up, down);
