import type { PostDraft, Problem } from '@social-publisher/domain';

/** Characters in a post's text (the shared rules count it, thread parts included). */
export const THREADS_TEXT_MAX = 500;
/** Items in one carousel (2 at least: a single media is an IMAGE or VIDEO post). */
export const THREADS_CAROUSEL_MAX = 20;

/** Threads checks beyond the shared rules: at most 20 media per post, follow-ups included. */
export function validateThreads(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  const tooMany = `a threads post takes at most ${THREADS_CAROUSEL_MAX} media (a carousel)`;
  if (draft.mediaUrls.length > THREADS_CAROUSEL_MAX) {
    problems.push({ field: 'media_urls', message: tooMany });
  }
  (draft.thread ?? []).forEach((part, index) => {
    if (part.mediaUrls.length > THREADS_CAROUSEL_MAX) {
      problems.push({ field: `thread[${index}].media_urls`, message: tooMany });
    }
  });
  return problems;
}
