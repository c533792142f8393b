import { definePlatform } from '../descriptor.ts';
import { createTwitterCommentsClient } from './comments.ts';
import { createTwitterMetricsReader } from './metrics.ts';
import { createTwitterOAuth } from './oauth.ts';
import { TWITTER_OPTIONS_SCHEMA, validateTwitterOptions } from './options.ts';
import { createTwitterPublisher } from './publisher.ts';
import { createTwitterRemover } from './remove.ts';
import { TWITTER_SETTINGS } from './settings.ts';
import { weightedLength, X_MAX_WEIGHTED_LENGTH } from './text.ts';

/** X, named `twitter` in the API. */
export const twitter = definePlatform({
  name: 'twitter',
  label: 'X',
  media: {},
  contentMaxLength: X_MAX_WEIGHTED_LENGTH,
  contentLength: weightedLength,
  replies: true,
  options: { schema: TWITTER_OPTIONS_SCHEMA, validate: validateTwitterOptions },
  settings: TWITTER_SETTINGS,
  createPublisher: createTwitterPublisher,
  createOAuth: createTwitterOAuth,
  createMetricsReader: createTwitterMetricsReader,
  createRemover: createTwitterRemover,
  createCommentsClient: createTwitterCommentsClient,
});
