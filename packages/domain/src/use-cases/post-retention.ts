import type { CoreDeps } from '../deps.ts';

/** How many finished posts one sweep deletes at most: a pass stays short, the next goes on. */
export const POST_RETENTION_BATCH = 1_000;

/**
 * Deletes finished posts older than POSTS_RETENTION_DAYS (off by default: nothing happens),
 * a bounded batch per call. Returns how many were deleted.
 */
export async function sweepFinishedPosts(
  deps: Pick<CoreDeps, 'repos' | 'clock' | 'settings'>,
  limit = POST_RETENTION_BATCH,
): Promise<number> {
  const retentionMs = deps.settings.postsRetentionMs;
  if (retentionMs === null) return 0;
  const cutoff = new Date(deps.clock.now().getTime() - retentionMs);
  return deps.repos.posts.deleteFinishedBefore(cutoff, limit);
}
