import { definePlatform } from '../descriptor.ts';
import { createBlueskyCommentsClient } from './comments.ts';
import { createBlueskyMetricsReader } from './metrics.ts';
import { createBlueskyPublisher } from './publisher.ts';
import { createBlueskyRemover } from './remove.ts';
import { createBlueskyCredentials } from './session.ts';
import { BLUESKY_SETTINGS } from './settings.ts';
import { BLUESKY_MAX_GRAPHEMES, graphemeLength } from './text.ts';

/** Bluesky (AT Protocol): connected by handle and app password, no OAuth client to register. */
export const bluesky = definePlatform({
  name: 'bluesky',
  label: 'Bluesky',
  media: {},
  contentMaxLength: BLUESKY_MAX_GRAPHEMES,
  contentLength: graphemeLength,
  replies: true,
  comments: true,
  settings: BLUESKY_SETTINGS,
  createPublisher: createBlueskyPublisher,
  createCredentials: createBlueskyCredentials,
  createMetricsReader: createBlueskyMetricsReader,
  createRemover: createBlueskyRemover,
  createCommentsClient: createBlueskyCommentsClient,
});
