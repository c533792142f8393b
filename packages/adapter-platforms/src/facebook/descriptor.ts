import { definePlatform } from '../descriptor.ts';
import { createNotYetPublisher } from '../shared/not-yet.ts';
import { createFacebookOAuth } from './oauth.ts';
import { FACEBOOK_SETTINGS } from './settings.ts';

/** Connectable now; its real publisher is the next step (until then publishing fails clearly). */
export const facebook = definePlatform({
  name: 'facebook',
  label: 'Facebook',
  media: {},
  contentMaxLength: 63_206,
  settings: FACEBOOK_SETTINGS,
  createPublisher: () => createNotYetPublisher('facebook', 'Facebook'),
  createOAuth: createFacebookOAuth,
});
