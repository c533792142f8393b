// Deleting a published Facebook Page post (docs/platforms.md#facebook; developers.facebook.com
// "Pages API: Posts", "Comment"): DELETE /{id}?access_token={Page token} for the first comment
// (`{post}_{comment}`), then the post (`{page}_{post}`, or the video's id for a video post);
// Graph answers `{ success: true }`, and 100/33 for an object that no longer exists. Meta's
// Pages API lists deleting posts and moderating comments under pages_manage_engagement, asked
// for at connect since; a connection made before lacks it and is told to reconnect.
import type { PlatformRemover } from '@social-publisher/domain';
import { graphRemover } from '../meta/remove.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { facebookFailure } from './api.ts';
import { FACEBOOK_ENGAGEMENT_MANAGE_SCOPE } from './oauth.ts';
import type { FacebookSettings } from './settings.ts';

export function createFacebookRemover(
  settings: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return graphRemover(runtime, {
    label: 'Facebook',
    baseUrl: settings.apiBaseUrl,
    version: settings.graphVersion,
    publishFailure: facebookFailure,
    scopes: [FACEBOOK_ENGAGEMENT_MANAGE_SCOPE],
  });
}
