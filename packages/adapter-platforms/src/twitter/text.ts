// X counts characters its own way (twitter-text "weighted length"): URLs 23 whatever their
// length, most CJK characters and emoji 2, the rest 1; a post is at most 280.
import { createRequire } from 'node:module';

// twitter-text is CommonJS without named exports Node can see: loaded through require.
const twitterText = createRequire(import.meta.url)('twitter-text') as typeof import('twitter-text');

export const X_MAX_WEIGHTED_LENGTH = 280;

export const weightedLength = (text: string): number => twitterText.parseTweet(text).weightedLength;

/** Stands for any link in a comparable text (a character no post contains). */
const LINK = '\u{FFFC}';

/**
 * A post's text reduced to what survives X's rewriting, to recognise a post X shows back:
 * X turns every link (as twitter-text finds them, bare domains included) into a t.co link,
 * HTML-escapes `&`, `<` and `>`, and ends the text of a post with media with a t.co link to
 * the media (`shownWithMedia`: drop it). So links compare as "a link" (two posts differing
 * only in their links look alike: the lookup also wants the post created after the intent),
 * and spacing and Unicode composition do not count.
 */
export function comparableText(text: string, shownWithMedia = false): string {
  let out = text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .normalize('NFC');
  const urls = twitterText.extractUrlsWithIndices(out);
  for (const { indices } of [...urls].reverse()) {
    out = `${out.slice(0, indices[0])}${LINK}${out.slice(indices[1])}`;
  }
  out = out
    .replace(/https?:\/\/\S+/g, LINK)
    .replace(/\s+/g, ' ')
    .trim();
  if (shownWithMedia && out.endsWith(LINK)) out = out.slice(0, -LINK.length).trimEnd();
  return out;
}
