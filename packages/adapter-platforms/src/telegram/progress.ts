// What a Telegram publish stores as it goes (request.saveProgress), so a resume never sends a
// message twice: the main message once it is answered (before any follow-up), then each
// follow-up in order. Album messages after the first are not kept: the first stands for it.

export interface TelegramProgress {
  messageId: string | null;
  threadIds: string[];
}

export const freshProgress = (): TelegramProgress => ({ messageId: null, threadIds: [] });

export function readProgress(state: Record<string, unknown> | null): TelegramProgress | null {
  if (!state || typeof state.messageId !== 'string') return null;
  return {
    messageId: state.messageId,
    threadIds: Array.isArray(state.threadIds)
      ? state.threadIds.filter((id): id is string => typeof id === 'string')
      : [],
  };
}
