import type { PlatformData, PostDraft, Problem } from '@social-publisher/domain';
import { oneVideoOrPhotos } from '../shared/media.ts';
import { maxCharactersOf } from './instance.ts';
import { statusLength } from './text.ts';

/** Mastodon's default attachment limit: 4 images, or 1 video. */
export const MASTODON_MAX_IMAGES = 4;

/** Checks that hold on every instance: each status takes one video or up to 4 photos. */
export function validateMastodon(draft: PostDraft): Problem[] {
  const problems = oneVideoOrPhotos('mastodon', draft.mediaUrls, MASTODON_MAX_IMAGES);
  (draft.thread ?? []).forEach((part, index) => {
    for (const problem of oneVideoOrPhotos('mastodon', part.mediaUrls, MASTODON_MAX_IMAGES)) {
      problems.push({ ...problem, field: `thread[${index}].media_urls` });
    }
  });
  return problems;
}

/**
 * The length rule of one connection's instance (its `max_characters`, read when it was
 * connected; 500 when unknown), on the status, each follow-up and the first comment (a reply).
 */
export function validateForInstance(draft: PostDraft, data: PlatformData | null): Problem[] {
  const max = maxCharactersOf(data);
  const where = typeof data?.instance === 'string' ? ` on ${data.instance}` : '';
  const problems: Problem[] = [];
  const check = (field: string, text: string) => {
    const length = statusLength(text);
    if (length > max) {
      problems.push({
        field,
        message: `is ${length} characters: Mastodon statuses${where} are limited to ${max} characters`,
      });
    }
  };
  check('content', draft.content);
  for (const [index, part] of (draft.thread ?? []).entries()) {
    check(`thread[${index}].content`, part.content);
  }
  if (draft.firstComment) check('first_comment', draft.firstComment);
  return problems;
}
