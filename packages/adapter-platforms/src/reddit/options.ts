// `platform_options.reddit`: where the post goes (subreddit), its title, self or link, flair and
// marks. Reddit's own bounds (reddit.com/dev/api#POST_api_submit, its submission form).
import { isRecord, type Problem, typeName } from '@social-publisher/domain';
import { describeValue, isHttpUrl } from '../shared/options.ts';

export const REDDIT_TITLE_MAX = 300;
/** Reddit's longest self-post body (the post's content). */
export const REDDIT_TEXT_MAX = 40_000;
export const REDDIT_URL_MAX = 2048;
const FLAIR_ID_MAX = 64;
/** Subreddit names: 2-21 letters, digits and underscores (older ones may be 2 long). */
const SUBREDDIT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_]{1,20}$/;
const KINDS = ['self', 'link'] as const;
export type RedditKind = (typeof KINDS)[number];

const BASE = 'platform_options.reddit';

/** JSON Schema of `platform_options.reddit` (HTTP schema and OpenAPI). */
export const REDDIT_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    subreddit: {
      type: 'string',
      maxLength: 21,
      description: 'Required: the subreddit posted to, its name without r/ (e.g. "test")',
    },
    title: {
      type: 'string',
      maxLength: REDDIT_TITLE_MAX,
      description: 'Required: the post title, 1 to 300 characters',
    },
    kind: {
      type: 'string',
      enum: [...KINDS],
      description:
        'self (default): a text post whose body is the content; link: a link post to `url`, or to the one media URL',
    },
    url: {
      type: 'string',
      maxLength: REDDIT_URL_MAX,
      description: 'Link posts: the http(s) URL shared (default: the post’s one media URL)',
    },
    flair_id: {
      type: 'string',
      maxLength: FLAIR_ID_MAX,
      description: 'A flair template id of the subreddit (some subreddits require one)',
    },
    nsfw: { type: 'boolean', description: 'Mark the post NSFW' },
    spoiler: { type: 'boolean', description: 'Mark the post as a spoiler' },
  },
  additionalProperties: false,
} as const;

const KNOWN_KEYS = new Set(Object.keys(REDDIT_OPTIONS_SCHEMA.properties));

/** `platform_options.reddit` as the publisher reads it (validated at create). */
export interface RedditOptions {
  subreddit: string | undefined;
  title: string | undefined;
  kind: RedditKind;
  url: string | undefined;
  flairId: string | undefined;
  nsfw: boolean;
  spoiler: boolean;
}

export function redditOptionsOf(all: Record<string, unknown> | undefined): RedditOptions {
  const own = isRecord(all?.reddit) ? all.reddit : {};
  const text = (key: string) => (typeof own[key] === 'string' ? own[key] : undefined);
  return {
    subreddit: text('subreddit'),
    title: text('title'),
    kind: own.kind === 'link' ? 'link' : 'self',
    url: text('url'),
    flairId: text('flair_id'),
    nsfw: own.nsfw === true,
    spoiler: own.spoiler === true,
  };
}

/** Checks each given option; that subreddit and title are there at all is validateReddit's. */
export function validateRedditOptions(value: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const problem = (key: string, message: string) =>
    problems.push({ field: `${BASE}.${key}`, message });
  for (const key of Object.keys(value)) {
    if (!KNOWN_KEYS.has(key)) problem(key, 'is not a known Reddit option');
  }
  const { subreddit, title, kind, url, flair_id: flairId } = value;
  if (
    subreddit !== undefined &&
    (typeof subreddit !== 'string' || !SUBREDDIT_PATTERN.test(subreddit))
  ) {
    problem(
      'subreddit',
      `must be a subreddit name without r/ (2-21 letters, digits or _), got ${describeValue(subreddit)}`,
    );
  }
  if (title !== undefined) {
    if (typeof title !== 'string') problem('title', `must be a string, got ${typeName(title)}`);
    else if (title.trim() === '') problem('title', 'must not be empty');
    else if (Array.from(title).length > REDDIT_TITLE_MAX) {
      problem('title', `is limited to ${REDDIT_TITLE_MAX} characters`);
    }
  }
  if (kind !== undefined && !KINDS.includes(kind as RedditKind)) {
    problem('kind', `must be self or link, got ${describeValue(kind)}`);
  }
  if (url !== undefined && (typeof url !== 'string' || !isHttpUrl(url))) {
    problem('url', 'must be an absolute http(s) URL');
  } else if (typeof url === 'string' && url.length > REDDIT_URL_MAX) {
    problem('url', `is limited to ${REDDIT_URL_MAX} characters`);
  }
  if (
    flairId !== undefined &&
    (typeof flairId !== 'string' || flairId === '' || flairId.length > FLAIR_ID_MAX)
  ) {
    problem('flair_id', `must be a flair template id (1-${FLAIR_ID_MAX} characters)`);
  }
  for (const key of ['nsfw', 'spoiler'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') {
      problem(key, `must be a boolean, got ${typeName(value[key])}`);
    }
  }
  return problems;
}
