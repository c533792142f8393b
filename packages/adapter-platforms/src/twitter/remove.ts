// Taking a published X post down (docs/platforms.md#x; docs.x.com "Manage Posts"):
// DELETE /2/tweets/:id for each follow-up (last first), the first comment, then the main post.
// A post already gone counts as removed: X answers `deleted: false` (or 404) for it. A refused
// token is renewed once, as the publisher does; a 429 waits for x-rate-limit-reset.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { publisherRefresher } from '../shared/oauth.ts';
import { partsToRemove, removalSession, runRemoval } from '../shared/removal.ts';
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
    remove: (request) =>
      runRemoval(request.signal, async () => {
        const api = createXApi(config, runtime, request.signal);
        const auth = removalSession(request, refresher, LABEL);
        for (const id of partsToRemove(request)) {
          await auth.call((token) => api.deleteTweet(token, id));
        }
      }),
  };
}
