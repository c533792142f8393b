import { definePlatform } from '../descriptor.ts';
import { createGoogleBusinessOAuth } from './oauth.ts';
import {
  GOOGLE_BUSINESS_OPTIONS_SCHEMA,
  GOOGLE_BUSINESS_SUMMARY_MAX,
  validateGoogleBusinessOptions,
} from './options.ts';
import { createGoogleBusinessPublisher } from './publisher.ts';
import { GOOGLE_BUSINESS_SETTINGS } from './settings.ts';

export const googleBusiness = definePlatform({
  name: 'google_business',
  label: 'Google Business Profile',
  media: {
    refuses: { video: 'google_business takes photos only (at most one); give an image URL' },
  },
  // The content is the post's summary.
  contentMaxLength: GOOGLE_BUSINESS_SUMMARY_MAX,
  options: { schema: GOOGLE_BUSINESS_OPTIONS_SCHEMA, validate: validateGoogleBusinessOptions },
  settings: GOOGLE_BUSINESS_SETTINGS,
  createPublisher: createGoogleBusinessPublisher,
  createOAuth: createGoogleBusinessOAuth,
});
