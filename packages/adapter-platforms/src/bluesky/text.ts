// Bluesky counts a post's length in graphemes (what a reader sees as one character: an emoji
// with its modifiers, a letter with its accents) and places rich text (links, tags) by UTF-8
// byte offsets into the text (app.bsky.richtext.facet).

/** Bluesky's limit on a post's text, in graphemes. */
export const BLUESKY_MAX_GRAPHEMES = 300;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function graphemeLength(text: string): number {
  let count = 0;
  for (const _ of segmenter.segment(text)) count += 1;
  return count;
}

export type Facet = {
  index: { byteStart: number; byteEnd: number };
  features: (
    | { $type: 'app.bsky.richtext.facet#link'; uri: string }
    | { $type: 'app.bsky.richtext.facet#tag'; tag: string }
  )[];
};

/** http(s) URLs, up to the next whitespace. */
const LINK = /https?:\/\/[^\s<>"]+/gu;
/** Punctuation that ends a sentence rather than the URL it follows. */
const TRAILING = /[.,;:!?'")\]]+$/u;
/** `#tag` at the start or after whitespace; not all digits (`#1` is not a tag). */
const TAG = /(^|\s)#([^\s#]*[^\d\s#][^\s#]*)/gu;
/** Bluesky's longest tag, in graphemes (without the #). */
const MAX_TAG_GRAPHEMES = 64;

/** UTF-8 byte offset of the UTF-16 index `at` in `text`. */
const byteOffset = (text: string, at: number): number => Buffer.byteLength(text.slice(0, at));

function facetAt(
  text: string,
  start: number,
  end: number,
  feature: Facet['features'][number],
): Facet {
  return {
    index: { byteStart: byteOffset(text, start), byteEnd: byteOffset(text, end) },
    features: [feature],
  };
}

/**
 * The links and tags of `text` as facets (Bluesky shows neither as such without them).
 * Mentions are left as plain text: they would need each handle resolved to its DID first.
 */
export function facetsOf(text: string): Facet[] {
  const facets: Facet[] = [];
  for (const match of text.matchAll(LINK)) {
    const uri = match[0].replace(TRAILING, '');
    if (!URL.canParse(uri)) continue;
    const start = match.index;
    facets.push(
      facetAt(text, start, start + uri.length, { $type: 'app.bsky.richtext.facet#link', uri }),
    );
  }
  for (const match of text.matchAll(TAG)) {
    const tag = (match[2] ?? '').replace(TRAILING, '');
    if (tag === '' || graphemeLength(tag) > MAX_TAG_GRAPHEMES) continue;
    const start = match.index + (match[1] ?? '').length;
    const end = start + 1 + tag.length;
    // A # inside a link (a URL fragment) is the link's, not a tag.
    const inLink = facets.some(
      (facet) =>
        facet.features[0]?.$type === 'app.bsky.richtext.facet#link' &&
        byteOffset(text, start) < facet.index.byteEnd &&
        byteOffset(text, end) > facet.index.byteStart,
    );
    if (!inLink) {
      facets.push(facetAt(text, start, end, { $type: 'app.bsky.richtext.facet#tag', tag }));
    }
  }
  return facets.sort((a, b) => a.index.byteStart - b.index.byteStart);
}
