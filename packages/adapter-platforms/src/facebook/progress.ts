// What a Facebook publish stores on its target as work finishes, so a resume reuses uploaded
// photos and follows a video already sent instead of sending it again.

export interface FacebookProgress {
  /** Per media URL, the unpublished photo id once uploaded (multi-photo posts). */
  photos: (string | null)[];
  /** The video sent to /videos, and when its status polling began (keeps the bound). */
  video: { videoId: string; pollStartedAt: number } | null;
}

export const freshProgress = (mediaCount: number): FacebookProgress => ({
  photos: Array.from({ length: mediaCount }, () => null),
  video: null,
});

/** The stored resume state, or null when there is none (or it is not ours). */
export function readProgress(
  state: Record<string, unknown> | null,
  mediaCount: number,
): FacebookProgress | null {
  if (!state || !Array.isArray(state.photos)) return null;
  const photos = state.photos.map((item) => (typeof item === 'string' ? item : null));
  while (photos.length < mediaCount) photos.push(null);
  const video = state.video as Record<string, unknown> | null | undefined;
  return {
    photos,
    video:
      video && typeof video.videoId === 'string'
        ? {
            videoId: video.videoId,
            pollStartedAt:
              typeof video.pollStartedAt === 'number' ? video.pollStartedAt : Date.now(),
          }
        : null,
  };
}
