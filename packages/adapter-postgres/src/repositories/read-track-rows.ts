/** The columns every followed target's row shares (metric_tracks, comment_tracks), as read. */
import type { ReadTrack } from '@social-publisher/domain';
import type { Selectable } from 'kysely';
import type { ReadTrackColumns } from '../schema.ts';

export function readTrackFromRow<Row extends Selectable<ReadTrackColumns<string>>>(
  row: Row,
): ReadTrack<Row['state']> {
  return {
    targetId: row.target_id,
    postId: row.post_id,
    accountId: row.account_id,
    socialAccountId: row.social_account_id,
    platform: row.platform,
    platformPostId: row.platform_post_id,
    publishedAt: row.published_at,
    sandbox: row.sandbox,
    state: row.state,
    step: row.step,
    dueAt: row.due_at,
    error: row.error,
  };
}
