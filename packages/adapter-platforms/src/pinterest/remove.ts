// Deleting a published Pin (docs/platforms.md#pinterest; developers.pinterest.com "Delete Pin"):
// DELETE /v5/pins/{pin_id}, answered 204; a 404 is a Pin that is not there. Pins have no thread
// and no comment here, so the Pin is the only part. pins:write, asked for at connect, covers it.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { PartGone, removeParts } from '../shared/remove-parts.ts';
import { pinterestFailure } from './api.ts';
import type { PinterestSettings } from './settings.ts';

export function createPinterestRemover(
  settings: PinterestSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return {
    remove: (request) => {
      const call = bearerClient(runtime, request.signal, {
        baseUrl: settings.apiBaseUrl,
        label: 'Pinterest',
        failure: (response, what) =>
          response.status === 404
            ? new PartGone(`${what}: HTTP 404`)
            : pinterestFailure(response, what),
      });
      const token = request.connection.accessToken;
      return removeParts(request, async (part) => {
        await call('DELETE', `/v5/pins/${encodeURIComponent(part.id)}`, token, 'Pin delete');
      });
    },
  };
}
