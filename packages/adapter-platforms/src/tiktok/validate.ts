// TikTok's checks of a post beyond the shared rules, and the limits they apply.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { mediaKindOf } from '../shared/media.ts';
import { boolOption, optionsOf, stringOption } from '../shared/options.ts';

/** TikTok counts title/description length in UTF-16 code units ("runes"). */
export const TIKTOK_VIDEO_TITLE_MAX = 2200;
export const TIKTOK_PHOTO_TITLE_MAX = 90;
export const TIKTOK_PHOTO_DESCRIPTION_MAX = 4000;
export const TIKTOK_PHOTO_MAX_COUNT = 35;

/**
 * TikTok checks beyond the shared rules (which already require media and check the option types,
 * the privacy enum and video-only options): one kind of media, one video or up to 35 photos,
 * caption lengths (UTF-16 units, as TikTok counts), branded content not private.
 */
export function validateTiktok(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  const options = optionsOf(draft.platformOptions, 'tiktok');
  const kinds = draft.mediaUrls.map(mediaKindOf);
  const photos = kinds.filter((kind) => kind === 'photo').length;
  const videos = kinds.length - photos;
  if (photos > 0 && videos > 0) {
    problems.push({
      field: 'media_urls',
      message: 'tiktok cannot mix photos and videos in one post',
    });
  } else if (videos > 1) {
    problems.push({ field: 'media_urls', message: 'tiktok takes one video per post' });
  } else if (photos > TIKTOK_PHOTO_MAX_COUNT) {
    problems.push({
      field: 'media_urls',
      message: `tiktok takes at most ${TIKTOK_PHOTO_MAX_COUNT} photos per post`,
    });
  }
  if (videos > 0 && draft.content.length > TIKTOK_VIDEO_TITLE_MAX) {
    problems.push({
      field: 'content',
      message: `tiktok video captions are limited to ${TIKTOK_VIDEO_TITLE_MAX} characters`,
    });
  }
  if (videos === 0 && photos > 0 && draft.content.length > TIKTOK_PHOTO_DESCRIPTION_MAX) {
    problems.push({
      field: 'content',
      message: `tiktok photo descriptions are limited to ${TIKTOK_PHOTO_DESCRIPTION_MAX} characters (the title is the first line, cut to ${TIKTOK_PHOTO_TITLE_MAX})`,
    });
  }
  if (
    boolOption(options, 'tiktokBrandContent') === true &&
    stringOption(options, 'tiktokPrivacy') === 'SELF_ONLY'
  ) {
    problems.push({
      field: 'platform_options.tiktok.tiktokPrivacy',
      message: 'branded content cannot be private (SELF_ONLY)',
    });
  }
  return problems;
}
