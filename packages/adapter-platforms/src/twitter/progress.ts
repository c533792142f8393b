// What an X publish stores as its media finish uploading (request.saveProgress), so a resume
// continues where the last run stopped: uploaded media are reused, a video goes on from its
// next segment, never initialized twice.

/** X forgets an uploaded media after a day: a resume this close to that uploads afresh. */
const EXPIRY_MARGIN_MS = 30 * 60_000;

export interface VideoProgress {
  mediaId: string;
  totalBytes: number;
  /** Segments appended so far (0..n), in order. */
  segmentsDone: number;
  finalized: boolean;
  pollStartedAt: number | null;
}

export interface XProgress {
  /** Per media URL, its media id once uploaded (images). */
  images: (string | null)[];
  video: VideoProgress | null;
  /** When the first of the stored media expires on X (ms), null when X did not say. */
  expiresAt: number | null;
  /** The main post, once X answered: stored before any follow-up is sent. */
  tweetId: string | null;
  /** The follow-ups published so far, in order: each stored before the next is sent. */
  threadIds: string[];
}

export const freshProgress = (mediaCount: number): XProgress => ({
  images: Array.from({ length: mediaCount }, () => null),
  video: null,
  expiresAt: null,
  tweetId: null,
  threadIds: [],
});

/** Keeps the earliest expiry of the media stored. */
export function noteExpiry(progress: XProgress, expiresAt: number | null): void {
  if (expiresAt === null) return;
  progress.expiresAt =
    progress.expiresAt === null ? expiresAt : Math.min(progress.expiresAt, expiresAt);
}

/**
 * The progress a resume may build on: null (start over) when none was stored, when it is not
 * ours, or when its media expire soon (X would refuse their ids in the post).
 */
export function readProgress(
  state: Record<string, unknown> | null,
  mediaCount: number,
  now: number = Date.now(),
): XProgress | null {
  if (!state || !Array.isArray(state.images)) return null;
  const expiresAt = typeof state.expiresAt === 'number' ? state.expiresAt : null;
  const tweetId = typeof state.tweetId === 'string' ? state.tweetId : null;
  const threadIds = Array.isArray(state.threadIds)
    ? state.threadIds.filter((id): id is string => typeof id === 'string')
    : [];
  // Once the main post is out its media are spent: only the posted ids matter (never re-posted).
  if (tweetId !== null) return { ...freshProgress(mediaCount), tweetId, threadIds };
  if (expiresAt !== null && now > expiresAt - EXPIRY_MARGIN_MS) return null;
  const images = state.images.map((item) => (typeof item === 'string' ? item : null));
  while (images.length < mediaCount) images.push(null);
  const v = state.video as Record<string, unknown> | null | undefined;
  const video =
    v && typeof v.mediaId === 'string' && typeof v.totalBytes === 'number'
      ? {
          mediaId: v.mediaId,
          totalBytes: v.totalBytes,
          segmentsDone: typeof v.segmentsDone === 'number' ? v.segmentsDone : 0,
          finalized: v.finalized === true,
          pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : null,
        }
      : null;
  return { images, video, expiresAt, tweetId: null, threadIds: [] };
}
