/**
 * What the memory fakes of metric and comment tracks share, as the PostgreSQL adapter shares it
 * (ReadTrackColumns, startTracks, one claim statement): starting a track for a target that just
 * published, and claiming the due ones oldest first.
 */
import type { PostTarget } from '../model.ts';
import type { ReadTrack } from '../read-track.ts';
import { copy, type MemoryStore } from './memory-store.ts';

type AnyTrack = ReadTrack<string>;

const byDue = (a: AnyTrack, b: AnyTrack) =>
  (a.dueAt?.getTime() ?? 0) - (b.dueAt?.getTime() ?? 0) || a.targetId.localeCompare(b.targetId);

/** The shared fields of a new track, or null when the target has nothing to follow yet. */
export function newReadTrack(
  store: MemoryStore,
  target: PostTarget,
  dueAt: Date,
): ReadTrack<'pending'> | null {
  const post = store.tables.posts.get(target.postId);
  if (!post || !target.platformPostId || !target.publishedAt) return null;
  return {
    targetId: target.id,
    postId: target.postId,
    accountId: post.accountId,
    socialAccountId: target.socialAccountId,
    platform: target.platform,
    platformPostId: target.platformPostId,
    publishedAt: new Date(target.publishedAt),
    sandbox: target.sandbox,
    state: 'pending',
    step: 0,
    dueAt: new Date(dueAt),
    error: null,
  };
}

/** Up to `limit` due tracks, oldest due first, each held until `leaseUntil`; copies. */
export function claimDueTracks<T extends AnyTrack>(
  tracks: Map<string, T>,
  now: Date,
  limit: number,
  leaseUntil: Date,
): T[] {
  const due = [...tracks.values()]
    .filter((track) => track.dueAt !== null && track.dueAt <= now)
    .sort(byDue)
    .slice(0, limit);
  const claimed = due.map((track) => copy(track));
  for (const track of due) track.dueAt = new Date(leaseUntil);
  return claimed;
}

/**
 * A read asked now for every track of the post not gone, not read since `readBefore` (by
 * `lastRead`: when its numbers or comments were last taken) and not already due; how many.
 */
export function requestTrackRefresh<T extends AnyTrack>(
  tracks: Map<string, T>,
  query: { postId: string; now: Date; readBefore: Date },
  lastRead: (track: T) => Date | null,
): number {
  const { postId, now, readBefore } = query;
  let asked = 0;
  for (const track of tracks.values()) {
    if (track.postId !== postId || track.state === 'gone') continue;
    const readAt = lastRead(track);
    if (readAt && readAt > readBefore) continue;
    if (track.dueAt && track.dueAt <= now) continue;
    track.dueAt = new Date(now);
    asked++;
  }
  return asked;
}
