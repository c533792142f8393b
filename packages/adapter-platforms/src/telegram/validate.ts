import type { PostDraft, Problem } from '@social-publisher/domain';

/** A text message: at most 4,096 characters. */
export const TELEGRAM_MAX_TEXT = 4_096;
/** The caption of a photo, a video or an album: at most 1,024 characters. */
export const TELEGRAM_MAX_CAPTION = 1_024;
/** An album (sendMediaGroup) holds 2 to 10 photos and videos. */
export const TELEGRAM_MAX_MEDIA = 10;

/**
 * Telegram's length, in UTF-16 code units: the unit its entity offsets are counted in, so an
 * emoji outside the Basic Multilingual Plane counts 2 (stricter than code points, never looser).
 */
export const telegramLength = (text: string): number => text.length;

/**
 * Each message (the main one, each follow-up): at most 10 media, and with media the text is a
 * caption of at most 1,024 characters. The 4,096 of a text message is the descriptor's limit.
 */
export function validateTelegram(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  const check = (where: string, content: string, mediaUrls: readonly string[]) => {
    const field = where === '' ? 'media_urls' : `${where}.media_urls`;
    if (mediaUrls.length > TELEGRAM_MAX_MEDIA) {
      problems.push({
        field,
        message: `telegram takes at most ${TELEGRAM_MAX_MEDIA} photos and videos per message (an album)`,
      });
    }
    const length = telegramLength(content);
    if (mediaUrls.length > 0 && length > TELEGRAM_MAX_CAPTION) {
      problems.push({
        field: where === '' ? 'content' : `${where}.content`,
        message: `is ${length} characters: a telegram caption (a message with media) is limited to ${TELEGRAM_MAX_CAPTION}`,
      });
    }
  };
  if (draft.mediaUrls.length === 0 && draft.content.trim() === '') {
    problems.push({ field: 'content', message: 'is required for telegram when there is no media' });
  }
  check('', draft.content, draft.mediaUrls);
  (draft.thread ?? []).forEach((part, index) => {
    check(`thread[${index}]`, part.content, part.mediaUrls);
  });
  return problems;
}
