import { definePlatform } from '../descriptor.ts';
import { createThreadsCommentsClient } from './comments.ts';
import { createThreadsMetricsReader } from './metrics.ts';
import { createThreadsOAuth } from './oauth.ts';
import { createThreadsPublisher } from './publisher.ts';
import { createThreadsRemover } from './remove.ts';
import { THREADS_SETTINGS } from './settings.ts';
import { THREADS_TEXT_MAX } from './validate.ts';

/**
 * Threads (Meta). A `thread` is a chain of replies; the platform has no comments apart from
 * replies, so a `first_comment` is published as the first reply to the post.
 */
export const threads = definePlatform({
  name: 'threads',
  label: 'Threads',
  media: {},
  contentMaxLength: THREADS_TEXT_MAX,
  replies: true,
  comments: true,
  settings: THREADS_SETTINGS,
  createPublisher: createThreadsPublisher,
  createOAuth: createThreadsOAuth,
  createMetricsReader: createThreadsMetricsReader,
  createRemover: createThreadsRemover,
  createCommentsClient: createThreadsCommentsClient,
});
