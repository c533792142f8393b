/**
 * 0005_oauth_state_browser: a connect flow is bound to the browser that opened its consent.
 *
 * oauth_states.browser_hash holds the SHA-256 of the nonce our authorize route put in that
 * browser's cookie; the callback accepts the state only with the matching cookie. Flows started
 * before this migration have none and are refused at the callback (they are started again).
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`ALTER TABLE oauth_states ADD COLUMN browser_hash text
        CHECK (browser_hash ~ '^[0-9a-f]{64}$')`,
];

const down = [sql`ALTER TABLE oauth_states DROP COLUMN IF EXISTS browser_hash`];

export const migration0005 = fromStatements(up, down);
