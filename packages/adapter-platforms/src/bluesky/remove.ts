// Deleting a published Bluesky post (docs/platforms.md#bluesky; docs.bsky.app
// "com.atproto.repo.deleteRecord"): POST /xrpc/com.atproto.repo.deleteRecord
// `{ repo, collection: "app.bsky.feed.post", rkey }` read from each part's at:// URI, with the
// access JWT of the session the publisher uses: the follow-ups (last first) and the first
// comment are the account's own reply records, deleted the same way, then the post. The PDS
// answers 200 (`{ commit }`), and 200 as well for a record that is not there (a delete is a
// no-op then): nothing else says "already gone". Deletes count against the account's write limits.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from '../shared/outcome.ts';
import { removeParts } from '../shared/remove-parts.ts';
import { POST_COLLECTION } from './api.ts';
import type { BlueskySettings } from './settings.ts';
import { mapped, xrpc } from './xrpc.ts';

/** `at://{did}/app.bsky.feed.post/{rkey}` -> the record's repo, collection and key. */
export function recordOf(uri: string): { repo: string; collection: string; rkey: string } {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  if (!match?.[1] || match[2] !== POST_COLLECTION || !match[3]) {
    throw fail('invalid_post_id', `Bluesky: ${uri} is not the at:// URI of a post`, false);
  }
  return { repo: match[1], collection: match[2], rkey: match[3] };
}

export function createBlueskyRemover(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return {
    remove: (request) =>
      removeParts(request, async (part) => {
        const record = recordOf(part.id);
        await mapped('deleteRecord', () =>
          xrpc(settings.serviceUrl, runtime, request.signal, {
            nsid: 'com.atproto.repo.deleteRecord',
            method: 'POST',
            token: request.connection.accessToken,
            json: record,
          }),
        );
      }),
  };
}
