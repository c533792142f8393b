/**
 * A request path as a span may show it: no query string (some platforms take the access token
 * there, e.g. the Graph API's `access_token=`), no fragment, and every segment that looks like an
 * id or a credential replaced by `{id}`. What is kept are the words of an API's route
 * (`/2/tweets`, `/v21.0/{id}/feed`, `/api/v1/statuses`), so spans group by call, not by post.
 */

/** A word of a route: letters, `-`, `_`, `.`, `:` (a verb such as `:publish`), and short. */
const ROUTE_WORD = /^[A-Za-z][A-Za-z_.:-]{0,39}$/;
/** A version segment (`2`, `v1`, `v21.0`, `2.1`). */
const VERSION = /^v?\d{1,3}(?:\.\d{1,3})?$/;

export function pathTemplate(path: string): string {
  const end = path.search(/[?#]/);
  const bare = end < 0 ? path : path.slice(0, end);
  const segments = bare.split('/').map((segment) => {
    if (segment === '' || VERSION.test(segment)) return segment;
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return '{id}';
    }
    return ROUTE_WORD.test(decoded) && !/\d/.test(decoded) ? segment : '{id}';
  });
  const template = segments.join('/');
  return template.startsWith('/') ? template : `/${template}`;
}
