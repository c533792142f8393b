// What a Discord publish stores as it goes (request.saveProgress), so a resume never sends a
// message twice: the main message (and its channel, for its link) once it is answered, before
// any follow-up, then each follow-up in order.

export interface DiscordProgress {
  messageId: string | null;
  channelId: string | null;
  threadIds: string[];
}

export const freshProgress = (): DiscordProgress => ({
  messageId: null,
  channelId: null,
  threadIds: [],
});

export function readProgress(state: Record<string, unknown> | null): DiscordProgress | null {
  if (!state || typeof state.messageId !== 'string') return null;
  return {
    messageId: state.messageId,
    channelId: typeof state.channelId === 'string' ? state.channelId : null,
    threadIds: Array.isArray(state.threadIds)
      ? state.threadIds.filter((id): id is string => typeof id === 'string')
      : [],
  };
}
