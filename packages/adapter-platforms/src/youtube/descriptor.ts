import { definePlatform } from '../descriptor.ts';
import { createYoutubeCommentsClient } from './comments.ts';
import { createYoutubeMetricsReader } from './metrics.ts';
import { createYoutubeOAuth } from './oauth.ts';
import { validateYoutubeOptions, YOUTUBE_OPTIONS_SCHEMA } from './options.ts';
import { createYoutubePublisher } from './publisher.ts';
import { createYoutubeRemover } from './remove.ts';
import { YOUTUBE_SETTINGS } from './settings.ts';

export const youtube = definePlatform({
  name: 'youtube',
  label: 'YouTube',
  media: {
    requiredMessage: 'youtube requires a video URL',
    refuses: { photo: 'youtube does not accept photos; give a video URL' },
  },
  comments: true,
  options: { schema: YOUTUBE_OPTIONS_SCHEMA, validate: validateYoutubeOptions },
  settings: YOUTUBE_SETTINGS,
  createPublisher: createYoutubePublisher,
  createOAuth: createYoutubeOAuth,
  createMetricsReader: createYoutubeMetricsReader,
  createRemover: createYoutubeRemover,
  createCommentsClient: createYoutubeCommentsClient,
});
