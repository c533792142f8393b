// What a Threads publish stores on its target as parts go out (request.saveProgress), so a
// resume goes on from the next part: a published part is never published again, and a
// container already made (a video Threads is still processing) is followed, not made again.

export interface ThreadsProgress {
  /** The main post once threads_publish answered, and its permalink when Threads gave one. */
  postId: string | null;
  postUrl: string | null;
  /** The follow-ups published so far, in order: each stored before the next is made. */
  threadIds: string[];
  /** The container of the part being published (0 the main post, n follow-up n-1). */
  container: { part: number; id: string; pollStartedAt: number } | null;
}

export const freshProgress = (): ThreadsProgress => ({
  postId: null,
  postUrl: null,
  threadIds: [],
  container: null,
});

/** The stored resume state, or null when there is none (or it is not ours). */
export function readProgress(state: Record<string, unknown> | null): ThreadsProgress | null {
  if (!state || !Array.isArray(state.threadIds)) return null;
  const container = state.container as Record<string, unknown> | null | undefined;
  return {
    postId: typeof state.postId === 'string' ? state.postId : null,
    postUrl: typeof state.postUrl === 'string' ? state.postUrl : null,
    threadIds: state.threadIds.filter((id): id is string => typeof id === 'string'),
    container:
      container && typeof container.id === 'string' && typeof container.part === 'number'
        ? {
            part: container.part,
            id: container.id,
            pollStartedAt:
              typeof container.pollStartedAt === 'number' ? container.pollStartedAt : Date.now(),
          }
        : null,
  };
}
