// What a Mastodon publish stores as it goes (request.saveProgress), so a resume never posts a
// part twice: the main status once it is answered, then each follow-up in order. Media are not
// kept: an upload posts nothing, and a status sent again under its Idempotency-Key comes back
// as the first one whatever media it names.

export interface MastodonProgress {
  statusId: string | null;
  statusUrl: string | null;
  threadIds: string[];
}

export const freshProgress = (): MastodonProgress => ({
  statusId: null,
  statusUrl: null,
  threadIds: [],
});

export function readProgress(state: Record<string, unknown> | null): MastodonProgress | null {
  if (!state || typeof state.statusId !== 'string') return null;
  return {
    statusId: state.statusId,
    statusUrl: typeof state.statusUrl === 'string' ? state.statusUrl : null,
    threadIds: Array.isArray(state.threadIds)
      ? state.threadIds.filter((id): id is string => typeof id === 'string')
      : [],
  };
}
