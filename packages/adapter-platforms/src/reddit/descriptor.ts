import { definePlatform } from '../descriptor.ts';
import { createRedditOAuth } from './oauth.ts';
import { REDDIT_OPTIONS_SCHEMA, REDDIT_TEXT_MAX, validateRedditOptions } from './options.ts';
import { createRedditPublisher } from './publisher.ts';
import { REDDIT_SETTINGS } from './settings.ts';

export const reddit = definePlatform({
  name: 'reddit',
  label: 'Reddit',
  // Media only as a link post's one URL (validateReddit); no rule of the shared ones applies.
  media: {},
  // The content is a text post's body.
  contentMaxLength: REDDIT_TEXT_MAX,
  options: { schema: REDDIT_OPTIONS_SCHEMA, validate: validateRedditOptions },
  settings: REDDIT_SETTINGS,
  createPublisher: createRedditPublisher,
  createOAuth: createRedditOAuth,
});
