/** Handing a claimed target back: its lease cleared, the error that delayed it kept. */
import type { TargetStatus } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface TargetRelease {
  targetId: string;
  /** The claim's status: the row changes only while it still holds it. */
  claimed: TargetStatus;
  /** The status it goes back to (absent: it keeps `claimed`, only the lease goes). */
  back?: TargetStatus;
  error: { errorCode: string; errorMessage: string } | null;
  at: Date;
}

export async function releaseClaim(db: Kysely<Database>, release: TargetRelease): Promise<void> {
  const { error } = release;
  await db
    .updateTable('post_targets')
    .set({
      ...(release.back === undefined ? {} : { status: release.back }),
      lease_expires_at: null,
      updated_at: release.at,
      ...(error === null ? {} : { error_code: error.errorCode, error_message: error.errorMessage }),
    })
    .where('id', '=', release.targetId)
    .where('status', '=', release.claimed)
    .execute();
}
