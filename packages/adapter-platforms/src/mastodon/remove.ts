// Deleting a published Mastodon status (docs/platforms.md#mastodon; docs.joinmastodon.org
// "statuses/:id DELETE"): DELETE /api/v1/statuses/:id on the connection's instance for each
// follow-up (last first) and the first comment (both are the account's own replies), then the
// status. Mastodon answers 200 with the deleted status (its source text, for a redraft), and 404
// `{ error: "Record not found" }` for one that is not there. write:statuses covers it; deletes
// have their own rate limit (30 per 30 minutes), answered 429 with X-RateLimit-Reset.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { PartGone, removeParts } from '../shared/remove-parts.ts';
import { mastodonFailure } from './api.ts';
import { instanceOf, instanceRuntime } from './instance.ts';
import type { MastodonSettings } from './settings.ts';

export function createMastodonRemover(
  _settings: MastodonSettings,
  baseRuntime: PublisherRuntime,
): PlatformRemover {
  // The instance is the user's choice: every call goes through the SSRF guard.
  const runtime = instanceRuntime(baseRuntime);
  return {
    remove: (request) =>
      removeParts(request, async (part) => {
        const call = bearerClient(runtime, request.signal, {
          baseUrl: instanceOf(request.connection.platformData),
          label: 'Mastodon',
          headers: { accept: 'application/json' },
          failure: (response, what) =>
            response.status === 404
              ? new PartGone(`${what}: HTTP 404`)
              : mastodonFailure(response, what),
        });
        const path = `/api/v1/statuses/${encodeURIComponent(part.id)}`;
        await call('DELETE', path, request.connection.accessToken, 'status delete');
      }),
  };
}
