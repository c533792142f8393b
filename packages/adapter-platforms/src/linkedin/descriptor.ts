import { definePlatform } from '../descriptor.ts';
import { createLinkedinCommentsClient } from './comments.ts';
import { createLinkedinMetricsReader } from './metrics.ts';
import { createLinkedinOAuth } from './oauth.ts';
import { createLinkedinPublisher } from './publisher.ts';
import { createLinkedinRemover } from './remove.ts';
import { LINKEDIN_SETTINGS } from './settings.ts';

export const linkedin = definePlatform({
  name: 'linkedin',
  label: 'LinkedIn',
  media: {},
  contentMaxLength: 3000,
  comments: true,
  settings: LINKEDIN_SETTINGS,
  createPublisher: createLinkedinPublisher,
  createOAuth: createLinkedinOAuth,
  createMetricsReader: createLinkedinMetricsReader,
  createRemover: createLinkedinRemover,
  createCommentsClient: createLinkedinCommentsClient,
});
