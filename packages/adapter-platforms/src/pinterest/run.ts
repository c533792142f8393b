// What one Pinterest publish run works with (shared/publish-run.ts), and what it stores on the
// target.
import type { PublishRun } from '../shared/publish-run.ts';
import type { createPinterestApi } from './api.ts';

export const LABEL = 'Pinterest';

/**
 * Stored on the target (saveProgress) once the video's bytes are uploaded, so a resume polls
 * that media instead of uploading again. Image Pins need nothing stored: Pinterest fetches the
 * URLs itself, and the Pin's creation is covered by the intent.
 */
export interface PinterestProgress {
  video: { mediaId: string; pollStartedAt: number } | null;
}

export type PinterestRun = PublishRun<ReturnType<typeof createPinterestApi>, PinterestProgress>;

export function readProgress(state: Record<string, unknown> | null): PinterestProgress | null {
  if (!state) return null;
  const video = state.video;
  if (typeof video !== 'object' || video === null) return { video: null };
  const v = video as Record<string, unknown>;
  if (typeof v.mediaId !== 'string' || v.mediaId === '') return { video: null };
  return {
    video: {
      mediaId: v.mediaId,
      pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : Date.now(),
    },
  };
}
