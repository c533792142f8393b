import { definePlatform } from '../descriptor.ts';
import { createInstagramCommentsClient } from './comments.ts';
import { createInstagramMetricsReader } from './metrics.ts';
import { createInstagramOAuth } from './oauth.ts';
import { createInstagramPublisher } from './publisher.ts';
import { INSTAGRAM_SETTINGS } from './settings.ts';

export const instagram = definePlatform({
  name: 'instagram',
  label: 'Instagram',
  media: { requiredMessage: 'instagram requires at least one media URL' },
  comments: true,
  settings: INSTAGRAM_SETTINGS,
  createPublisher: createInstagramPublisher,
  createOAuth: createInstagramOAuth,
  createMetricsReader: createInstagramMetricsReader,
  createCommentsClient: createInstagramCommentsClient,
});
