import { definePlatform } from '../descriptor.ts';
import { createPinterestMetricsReader } from './metrics.ts';
import { createPinterestOAuth } from './oauth.ts';
import { PINTEREST_OPTIONS_SCHEMA, validatePinterestOptions } from './options.ts';
import { createPinterestPublisher } from './publisher.ts';
import { createPinterestRemover } from './remove.ts';
import { PINTEREST_SETTINGS } from './settings.ts';

export const pinterest = definePlatform({
  name: 'pinterest',
  label: 'Pinterest',
  media: { requiredMessage: 'pinterest requires an image or video URL' },
  // The post's content is the Pin's description.
  contentMaxLength: 500,
  options: { schema: PINTEREST_OPTIONS_SCHEMA, validate: validatePinterestOptions },
  settings: PINTEREST_SETTINGS,
  createPublisher: createPinterestPublisher,
  createOAuth: createPinterestOAuth,
  createMetricsReader: (settings, runtime) => createPinterestMetricsReader(settings, runtime),
  createRemover: createPinterestRemover,
});
