// Deleting a published YouTube video (docs/platforms.md#youtube; developers.google.com "Videos:
// delete", "Comments: delete"): the first comment with DELETE /youtube/v3/comments?id= (a
// comment thread's id is its top-level comment's), then the video with DELETE
// /youtube/v3/videos?id=, 50 quota units each. YouTube answers 204, and 404 (videoNotFound,
// commentNotFound) for what is not there. Both need youtube.force-ssl, asked for at connect.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall } from '../shared/http.ts';
import { PartGone, removeParts } from '../shared/remove-parts.ts';
import { youtubeFailure } from './failure.ts';
import { YOUTUBE_MANAGE_SCOPE } from './oauth.ts';
import type { YoutubeSettings } from './settings.ts';

export function createYoutubeRemover(
  config: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return {
    scopes: [YOUTUBE_MANAGE_SCOPE],
    remove: (request) =>
      removeParts(request, async (part) => {
        const resource = part.kind === 'first_comment' ? 'comments' : 'videos';
        const url = new URL(`${config.apiBaseUrl}/youtube/v3/${resource}`);
        url.searchParams.set('id', part.id);
        const response = await apiCall(
          runtime,
          request.signal,
          {
            url,
            method: 'DELETE',
            headers: { authorization: `Bearer ${request.connection.accessToken}` },
          },
          `YouTube ${resource}.delete`,
        );
        if (response.status >= 200 && response.status < 300) return;
        if (response.status === 404) throw new PartGone(`YouTube ${resource}.delete: HTTP 404`);
        throw youtubeFailure(response);
      }),
  };
}
