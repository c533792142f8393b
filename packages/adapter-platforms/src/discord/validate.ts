import type { PostDraft, Problem } from '@social-publisher/domain';

/** A message's content: at most 2,000 characters. */
export const DISCORD_MAX_CONTENT = 2_000;
/** A message carries at most 10 attachments. */
export const DISCORD_MAX_FILES = 10;

/**
 * Each message (the main one, each follow-up) carries at most 10 files; a message needs text or
 * a file. The 2,000 characters are the descriptor's limit.
 */
export function validateDiscord(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  if (draft.mediaUrls.length === 0 && draft.content.trim() === '') {
    problems.push({ field: 'content', message: 'is required for discord when there is no media' });
  }
  const check = (field: string, mediaUrls: readonly string[]) => {
    if (mediaUrls.length > DISCORD_MAX_FILES) {
      problems.push({
        field,
        message: `discord takes at most ${DISCORD_MAX_FILES} files per message`,
      });
    }
  };
  check('media_urls', draft.mediaUrls);
  (draft.thread ?? []).forEach((part, index) => {
    check(`thread[${index}].media_urls`, part.mediaUrls);
  });
  return problems;
}
