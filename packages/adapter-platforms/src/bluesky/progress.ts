// What a Bluesky publish stores as its records are created (request.saveProgress): the main
// post and each follow-up, so a resume goes on from the next part and never creates one again.
// Uploaded blobs are not kept: uploading again creates nothing visible.

import type { StrongRef } from './api.ts';

export interface BlueskyProgress {
  /** The main post, once Bluesky answered: stored before any reply is sent. */
  post: StrongRef | null;
  /** The follow-ups created so far, in order. */
  thread: StrongRef[];
}

export const freshProgress = (): BlueskyProgress => ({ post: null, thread: [] });

const refOf = (value: unknown): StrongRef | null => {
  if (typeof value !== 'object' || value === null) return null;
  const { uri, cid } = value as Record<string, unknown>;
  return typeof uri === 'string' && typeof cid === 'string' ? { uri, cid } : null;
};

/** The progress a resume builds on; null (start over) when none was stored or it is not ours. */
export function readProgress(state: Record<string, unknown> | null): BlueskyProgress | null {
  if (!state || !('post' in state)) return null;
  const thread = Array.isArray(state.thread) ? state.thread.map(refOf) : [];
  return {
    post: refOf(state.post),
    thread: thread.filter((ref): ref is StrongRef => ref !== null),
  };
}
