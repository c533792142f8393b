// Deleting a published Threads post (docs/platforms.md#threads; developers.facebook.com
// "Threads API: Delete Posts"): DELETE /v1.0/{threads-media-id}?access_token= for each
// follow-up (last first) and the first comment (both are the profile's own replies), then the
// post; Threads answers `{ success: true, deleted_id }`, and Graph's 100/33 for a post that no
// longer exists. Deletes need the threads_delete permission (asked for at connect; a connection
// made before lacks it and is told to reconnect) and count against 100 deletes a day.
import type { PlatformRemover } from '@social-publisher/domain';
import { graphRemover } from '../meta/remove.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { THREADS_API_VERSION, threadsFailure } from './api.ts';
import { THREADS_DELETE_SCOPE } from './oauth.ts';
import type { ThreadsSettings } from './settings.ts';

export function createThreadsRemover(
  settings: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return graphRemover(runtime, {
    label: 'Threads',
    baseUrl: settings.apiBaseUrl,
    version: THREADS_API_VERSION,
    publishFailure: threadsFailure,
    scopes: [THREADS_DELETE_SCOPE],
  });
}
