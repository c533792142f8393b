/**
 * 0002_platform_names_unchecked: the platform columns stop listing the platforms.
 *
 * Which platforms exist is the application's knowledge (one descriptor per platform in
 * adapter-platforms); a CHECK listing them made every new platform a schema change. The
 * columns keep a shape check (a short lowercase name) as the last line of defence.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const NAME_SHAPE = sql.raw(`platform ~ '^[a-z][a-z0-9_]{0,31}$'`);

const up = [
  sql`ALTER TABLE social_accounts DROP CONSTRAINT IF EXISTS social_accounts_platform_check`,
  sql`ALTER TABLE social_accounts ADD CONSTRAINT social_accounts_platform_name CHECK (${NAME_SHAPE})`,
  sql`ALTER TABLE post_targets DROP CONSTRAINT IF EXISTS post_targets_platform_check`,
  sql`ALTER TABLE post_targets ADD CONSTRAINT post_targets_platform_name CHECK (${NAME_SHAPE})`,
];

// Going back restores only the shape check: the old list cannot be known to cover the rows.
const down = [
  sql`ALTER TABLE post_targets DROP CONSTRAINT IF EXISTS post_targets_platform_name`,
  sql`ALTER TABLE social_accounts DROP CONSTRAINT IF EXISTS social_accounts_platform_name`,
];

export const migration0002 = fromStatements(up, down);
