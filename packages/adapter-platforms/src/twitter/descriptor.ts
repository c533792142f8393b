import { definePlatform } from '../descriptor.ts';
import { createNotYetPublisher } from '../shared/not-yet.ts';
import { createTwitterOAuth } from './oauth.ts';
import { TWITTER_SETTINGS } from './settings.ts';

/** Connectable now; its real publisher is the next step (until then publishing fails clearly). */
export const twitter = definePlatform({
  name: 'twitter',
  label: 'X',
  media: {},
  contentMaxLength: 280,
  settings: TWITTER_SETTINGS,
  createPublisher: () => createNotYetPublisher('twitter', 'X'),
  createOAuth: createTwitterOAuth,
});
