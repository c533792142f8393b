/**
 * 0015_approval: members' posts held for an owner's or an admin's approval (docs/api.md#approval).
 *
 * - accounts.approval_required: the team's setting (false everywhere until an owner or admin
 *   turns it on; a personal account never has it).
 * - posts.status gains `pending_approval` (held: never due, never started) and `rejected`
 *   (terminal), and posts.rejection_reason says why (only on a rejected post; at most 1,000
 *   characters, as the domain checks).
 * - posts_pending_approval_idx: an approver's list of what waits in one team, newest first; a
 *   partial index, so only waiting posts are in it (they are few, and leave it when decided).
 *
 * Existing rows keep their meaning: no team requires approval, no post waits.
 */
import { sql } from 'kysely';
import { fromStatements } from './from-statements.ts';

const STATUSES_BEFORE = sql.raw(
  `'scheduled', 'queued', 'publishing', 'published', 'partial', 'failed', 'cancelled'`,
);
const STATUSES = sql.raw(
  `'scheduled', 'queued', 'publishing', 'published', 'partial', 'failed', 'cancelled', 'pending_approval', 'rejected'`,
);

const up = [
  sql`ALTER TABLE accounts ADD COLUMN approval_required boolean NOT NULL DEFAULT false`,
  sql`ALTER TABLE accounts ADD CONSTRAINT accounts_approval_required_team
        CHECK (NOT approval_required OR kind = 'team')`,
  sql`ALTER TABLE posts DROP CONSTRAINT IF EXISTS posts_status_check`,
  sql`ALTER TABLE posts ADD CONSTRAINT posts_status_check CHECK (status IN (${STATUSES}))`,
  sql`ALTER TABLE posts ADD COLUMN rejection_reason text
        CHECK (char_length(rejection_reason) <= 1000)`,
  sql`ALTER TABLE posts ADD CONSTRAINT posts_rejection_reason_rejected
        CHECK (rejection_reason IS NULL OR status = 'rejected')`,
  sql`CREATE INDEX posts_pending_approval_idx ON posts (account_id, created_at DESC, id DESC)
        WHERE status = 'pending_approval'`,
];

// Down refuses while any post waits or was rejected (the old status check would fail): decide
// or cancel them first.
const down = [
  sql`DROP INDEX IF EXISTS posts_pending_approval_idx`,
  sql`ALTER TABLE posts DROP COLUMN IF EXISTS rejection_reason`,
  sql`ALTER TABLE posts DROP CONSTRAINT IF EXISTS posts_status_check`,
  sql`ALTER TABLE posts ADD CONSTRAINT posts_status_check CHECK (status IN (${STATUSES_BEFORE}))`,
  sql`ALTER TABLE accounts DROP COLUMN IF EXISTS approval_required`,
];

export const migration0015 = fromStatements(up, down);
