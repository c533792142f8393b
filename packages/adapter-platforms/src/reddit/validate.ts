// Reddit's checks of a post beyond the shared rules (which bound the content, a self post's body,
// to 40,000 characters) and its own options' shapes.
import type { PostDraft, Problem } from '@social-publisher/domain';
import { redditOptionsOf } from './options.ts';

const BASE = 'platform_options.reddit';

/**
 * Every Reddit post names its subreddit and title. A self post is text only (its body is the
 * content); a link post shares one URL: `url`, or else the post's one media URL (Reddit fetches
 * the link itself and shows its preview).
 */
export function validateReddit(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  const options = redditOptionsOf(draft.platformOptions);
  if (options.subreddit === undefined) {
    problems.push({ field: `${BASE}.subreddit`, message: 'is required: the subreddit posted to' });
  }
  if (options.title === undefined) {
    problems.push({ field: `${BASE}.title`, message: 'is required: the title of the Reddit post' });
  }
  const media = draft.mediaUrls.length;
  if (options.kind === 'self') {
    if (options.url !== undefined) {
      problems.push({ field: `${BASE}.url`, message: 'is for link posts: set kind to link' });
    }
    if (media > 0) {
      problems.push({
        field: 'media_urls',
        message:
          'reddit text posts carry no media: set platform_options.reddit.kind to link to share one URL',
      });
    }
    return problems;
  }
  if (options.url !== undefined && media > 0) {
    problems.push({
      field: 'media_urls',
      message:
        'a reddit link post shares one URL: platform_options.reddit.url or one media URL, not both',
    });
  } else if (options.url === undefined && media !== 1) {
    problems.push({
      field: media === 0 ? `${BASE}.url` : 'media_urls',
      message:
        media === 0
          ? 'is required for a link post (or give one media URL)'
          : 'a reddit link post shares one URL: give one media URL, or platform_options.reddit.url',
    });
  }
  return problems;
}

/** The URL a link post shares: the option, else the one media URL. */
export const linkOf = (url: string | undefined, mediaUrls: readonly string[]): string | undefined =>
  url ?? mediaUrls[0];
