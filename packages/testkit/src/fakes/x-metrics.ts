// The reading half of the fake X API v2: GET /2/tweets?ids=…&tweet.fields=… (posts lookup) with
// public_metrics and non_public_metrics as X answers them: a post X does not know (or a test
// removed) is a "Not Found Error" beside the data; non_public_metrics only for the user's own
// posts of the last 30 days, any other post left out of `data` with a "Field Authorization
// Error" (as X does); `nonPublic: 'forbidden'` makes X refuse the whole call with 403 instead.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import { PostNumbers } from './post-numbers.ts';
import type { XTweet } from './x-posts.ts';

export const X_METRIC_KEYS = [
  'like_count',
  'reply_count',
  'retweet_count',
  'quote_count',
  'bookmark_count',
  'impression_count',
  'url_link_clicks',
] as const;
export type XMetricKey = (typeof X_METRIC_KEYS)[number];

/** How X treats non_public_metrics: by its rule, refused on every post, or the call refused. */
export type XNonPublicMode = 'own' | 'refused' | 'forbidden';

const PROBLEMS = 'https://api.twitter.com/2/problems';
const LOOKUP_MAX_IDS = 100;
const PRIVATE_WINDOW_MS = 30 * 24 * 3_600_000;
const PUBLIC_FIELDS = X_METRIC_KEYS.filter((key) => key !== 'url_link_clicks');

export interface XReading {
  /** Per-post numbers under X's names (null: left out); setting them makes the post exist. */
  numbers: PostNumbers<XMetricKey>;
  /** Who posted what a test set numbers for (default: the fake's user, now). */
  authored: Map<string, { authorId: string; createdAt: Date }>;
  nonPublic: XNonPublicMode;
}

export function createXReading(tweets: readonly XTweet[], userId: () => string) {
  const reading: XReading = {
    numbers: new PostNumbers(X_METRIC_KEYS),
    authored: new Map(),
    nonPublic: 'own',
  };

  const authorOf = (id: string) => {
    const tweet = tweets.find((t) => t.id === id);
    if (tweet) return { authorId: tweet.authorId, createdAt: tweet.createdAt };
    return reading.authored.get(id) ?? { authorId: userId(), createdAt: new Date() };
  };
  const exists = (id: string) =>
    !reading.numbers.isGone(id) &&
    (reading.numbers.has(id) || tweets.some((tweet) => tweet.id === id));

  const invalid = (response: ServerResponse, message: string) =>
    sendJson(response, 400, {
      errors: [{ parameters: {}, message }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: `${PROBLEMS}/invalid-request`,
    });

  /** GET /2/tweets: the posts of `ids` with the fields asked. */
  function lookup(response: ServerResponse, query: URLSearchParams) {
    const ids = (query.get('ids') ?? '').split(',').filter((id) => id !== '');
    if (ids.length === 0 || ids.length > LOOKUP_MAX_IDS || ids.some((id) => !/^\d+$/.test(id))) {
      return invalid(
        response,
        `The \`ids\` query parameter value [${query.get('ids')}] is not valid`,
      );
    }
    const fields = new Set((query.get('tweet.fields') ?? '').split(','));
    const privateToo = fields.has('non_public_metrics');
    if (privateToo && reading.nonPublic === 'forbidden') {
      return sendJson(response, 403, {
        title: 'Forbidden',
        type: 'about:blank',
        status: 403,
        detail: 'You are not permitted to perform this action.',
      });
    }
    const data: Record<string, unknown>[] = [];
    const errors: Record<string, unknown>[] = [];
    for (const id of ids) {
      if (!exists(id)) {
        errors.push({
          value: id,
          detail: `Could not find tweet with ids: [${id}].`,
          title: 'Not Found Error',
          resource_type: 'tweet',
          parameter: 'ids',
          resource_id: id,
          type: `${PROBLEMS}/resource-not-found`,
        });
        continue;
      }
      const author = authorOf(id);
      const own =
        author.authorId === userId() && Date.now() - author.createdAt.getTime() < PRIVATE_WINDOW_MS;
      if (privateToo && (reading.nonPublic === 'refused' || !own)) {
        errors.push({
          resource_type: 'tweet',
          field: 'non_public_metrics',
          parameter: 'ids',
          resource_id: id,
          title: 'Field Authorization Error',
          section: 'data',
          detail: `Sorry, you are not authorized to access 'non_public_metrics' on the Tweet with ids : [${id}].`,
          value: id,
          type: `${PROBLEMS}/not-authorized-for-field`,
        });
        continue;
      }
      data.push(postOf(id, fields, reading.numbers.present(id)));
    }
    const body: Record<string, unknown> = data.length > 0 ? { data } : {};
    if (errors.length > 0) body.errors = errors;
    sendJson(response, 200, body);
  }

  return { reading, lookup };
}

function postOf(
  id: string,
  fields: ReadonlySet<string>,
  numbers: Partial<Record<XMetricKey, number>>,
): Record<string, unknown> {
  const post: Record<string, unknown> = { id, text: `post ${id}`, edit_history_tweet_ids: [id] };
  if (fields.has('public_metrics')) {
    post.public_metrics = Object.fromEntries(
      PUBLIC_FIELDS.filter((key) => numbers[key] !== undefined).map((key) => [key, numbers[key]]),
    );
  }
  if (fields.has('non_public_metrics')) {
    post.non_public_metrics =
      numbers.url_link_clicks === undefined
        ? {}
        : { url_link_clicks: numbers.url_link_clicks, user_profile_clicks: 0 };
  }
  return post;
}
