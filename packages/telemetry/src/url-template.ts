/**
 * A request path as a span may show it: no query string (some platforms take the access token
 * there, e.g. the Graph API's `access_token=`), no fragment, and every segment that does not
 * look like a word of an API's route replaced by `{id}`. Kept: version segments (`2`, `v21.0`)
 * and words (`tweets`, `threads_publish`, `initializeUpload`, `com.atproto.repo.createRecord`);
 * so spans group by call, not by post. Webhook and media URLs are the users' own: a segment
 * with a digit, a capital first letter, more than three capitals or over 32 characters is
 * taken for an id or a key. A secret of lower-case letters alone would pass for a word: keep
 * keys out of webhook paths (the signature is what authenticates a delivery).
 */

/** A word: starts lower-case; letters, `_`, `.`, `:`, `-`; at most 32 characters. */
const ROUTE_WORD = /^[a-z][A-Za-z_.:-]{0,31}$/;
/** A version segment (`2`, `v1`, `v21.0`, `2.1`). */
const VERSION = /^v?\d{1,3}(?:\.\d{1,3})?$/;
const MAX_CAPITALS = 3;

function isRouteWord(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return false;
  }
  const capitals = decoded.replace(/[^A-Z]/g, '').length;
  return ROUTE_WORD.test(decoded) && capitals <= MAX_CAPITALS;
}

export function pathTemplate(path: string): string {
  const end = path.search(/[?#]/);
  const bare = end < 0 ? path : path.slice(0, end);
  const template = bare
    .split('/')
    .map((segment) =>
      segment === '' || VERSION.test(segment) || isRouteWord(segment) ? segment : '{id}',
    )
    .join('/');
  return template.startsWith('/') ? template : `/${template}`;
}
