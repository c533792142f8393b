// Taking a published X post down (docs/platforms.md#x; docs.x.com "Manage Posts"):
// DELETE /2/tweets/:id for each follow-up (last first), the first comment, then the main post.
// A post already gone counts as removed: X answers `deleted: false` (or 404) for it. A refused
// token is renewed once, as the publisher does; a 429 waits for x-rate-limit-reset.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { publisherRefresher } from '../shared/oauth.ts';
import { removalSession, removeParts } from '../shared/remove-parts.ts';
import { createXApi } from './api.ts';
import { xRenewal } from './oauth.ts';
import { LABEL } from './run.ts';
import type { TwitterSettings } from './settings.ts';

export function createTwitterRemover(
  config: TwitterSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  const refresher = publisherRefresher(xRenewal(config, runtime));
  return {
    remove: (request) => {
      const api = createXApi(config, runtime, request.signal);
      const auth = removalSession(request, refresher, LABEL);
      // X answers `deleted: false` or 404 for a post already gone: deleteTweet resolves then.
      return removeParts(request, (part) => auth.call((token) => api.deleteTweet(token, part.id)));
    },
  };
}
