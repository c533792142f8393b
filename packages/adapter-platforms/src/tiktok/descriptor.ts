import { definePlatform } from '../descriptor.ts';
import { createTiktokMetricsReader } from './metrics.ts';
import { createTiktokOAuth } from './oauth.ts';
import { TIKTOK_OPTIONS_SCHEMA, validateTiktokOptions } from './options.ts';
import { createTiktokPublisher } from './publisher.ts';
import { TIKTOK_SETTINGS } from './settings.ts';

export const tiktok = definePlatform({
  name: 'tiktok',
  label: 'TikTok',
  media: { requiredMessage: 'tiktok requires a video or photo URL' },
  options: { schema: TIKTOK_OPTIONS_SCHEMA, validate: validateTiktokOptions },
  settings: TIKTOK_SETTINGS,
  createPublisher: createTiktokPublisher,
  createOAuth: createTiktokOAuth,
  createMetricsReader: createTiktokMetricsReader,
});
