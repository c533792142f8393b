import { definePlatform } from '../descriptor.ts';
import { createFacebookCommentsClient } from './comments.ts';
import { createFacebookMetricsReader } from './metrics.ts';
import { createFacebookOAuth } from './oauth.ts';
import { FACEBOOK_OPTIONS_SCHEMA, validateFacebookOptions } from './options.ts';
import { createFacebookPublisher } from './publisher.ts';
import { createFacebookRemover } from './remove.ts';
import { FACEBOOK_SETTINGS } from './settings.ts';

/** Facebook Pages: one connection per Page, posting with its Page token. */
export const facebook = definePlatform({
  name: 'facebook',
  label: 'Facebook',
  media: {},
  contentMaxLength: 63_206,
  comments: true,
  options: { schema: FACEBOOK_OPTIONS_SCHEMA, validate: validateFacebookOptions },
  settings: FACEBOOK_SETTINGS,
  createPublisher: createFacebookPublisher,
  createOAuth: createFacebookOAuth,
  createMetricsReader: createFacebookMetricsReader,
  createRemover: createFacebookRemover,
  createCommentsClient: createFacebookCommentsClient,
});
