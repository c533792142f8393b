/**
 * 0006_webhook_secrets_sealed: webhook signing secrets are stored sealed (AES-256-GCM, bound
 * to their row), no longer as the `whsec_` text itself.
 *
 * The column keeps its name and a shape check: a sealed secret (`v2.`), or a row written
 * before this change, still in the clear until `pnpm cli secrets reencrypt` seals it. No row
 * is rewritten here: sealing needs the encryption key, which migrations do not have.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const up = [
  sql`ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_secret_check`,
  sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_secret_shape CHECK (secret ~ '^(whsec_|v2[.])')`,
];

// Going back restores only the looser shape: sealed rows cannot satisfy the old check.
const down = [sql`ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_secret_shape`];

export const migration0006 = fromStatements(up, down);
