import { definePlatform } from '../descriptor.ts';
import { createMastodonCommentsClient } from './comments.ts';
import { createMastodonMetricsReader } from './metrics.ts';
import { createMastodonOAuth, MASTODON_CONNECT_FIELDS } from './oauth.ts';
import { MASTODON_OPTIONS_SCHEMA, validateMastodonOptions } from './options.ts';
import { createMastodonPublisher } from './publisher.ts';
import { createMastodonRemover } from './remove.ts';
import { MASTODON_SETTINGS } from './settings.ts';

/**
 * Mastodon, on any instance: the connection remembers its instance and that instance's status
 * length (platform data), so the length rule is per connection (the publisher's validateFor),
 * not a platform-wide `contentMaxLength`.
 */
export const mastodon = definePlatform({
  name: 'mastodon',
  label: 'Mastodon',
  media: {},
  replies: true,
  comments: true,
  connect: MASTODON_CONNECT_FIELDS,
  options: { schema: MASTODON_OPTIONS_SCHEMA, validate: validateMastodonOptions },
  settings: MASTODON_SETTINGS,
  createPublisher: createMastodonPublisher,
  createOAuth: createMastodonOAuth,
  createMetricsReader: createMastodonMetricsReader,
  createRemover: createMastodonRemover,
  createCommentsClient: createMastodonCommentsClient,
});
