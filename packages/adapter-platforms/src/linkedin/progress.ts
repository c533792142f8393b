// What a LinkedIn publish stores on the target (request.saveProgress) as media finish uploading
// and before the post is created, so a resume reuses finished media and never posts twice.
import type { VideoPart, VideoUpload } from './api.ts';

/** A video being uploaded: what initializeUpload answered and the parts done so far. */
export interface VideoProgress extends VideoUpload {
  totalBytes: number;
  /** Per part, its ETag once uploaded (null: still to send). */
  etags: (string | null)[];
  finalized: boolean;
  /** When status polling began (keeps the bound across resumes). */
  pollStartedAt: number | null;
}

export interface LinkedinProgress {
  author: string;
  /** Per media URL, the image URN once its bytes are uploaded. */
  images: (string | null)[];
  video: VideoProgress | null;
}

export function readProgress(
  state: Record<string, unknown> | null,
  mediaCount: number,
): LinkedinProgress | null {
  if (!state || typeof state.author !== 'string') return null;
  const images = Array.isArray(state.images)
    ? state.images.map((item) => (typeof item === 'string' ? item : null))
    : [];
  while (images.length < mediaCount) images.push(null);
  const video = readVideo(state.video);
  return { author: state.author, images, video };
}

function readVideo(value: unknown): VideoProgress | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.video !== 'string' || !Array.isArray(v.parts) || typeof v.totalBytes !== 'number') {
    return null;
  }
  const parts = v.parts as VideoPart[];
  const etags = Array.isArray(v.etags)
    ? v.etags.map((etag) => (typeof etag === 'string' ? etag : null))
    : [];
  while (etags.length < parts.length) etags.push(null);
  return {
    video: v.video,
    uploadToken: typeof v.uploadToken === 'string' ? v.uploadToken : '',
    parts,
    totalBytes: v.totalBytes,
    etags,
    finalized: v.finalized === true,
    pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : null,
  };
}
