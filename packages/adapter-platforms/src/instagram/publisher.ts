import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import {
  type CommentFinder,
  type CommentSender,
  publishWithFirstComment,
} from '../shared/first-comment.ts';
import { mediaKindOf } from '../shared/media.ts';
import { fail, notThePlatforms, runPublish } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { createInstagramApi } from './api.ts';
import type { InstagramSettings } from './settings.ts';
import { validateInstagram } from './validate.ts';

/**
 * Resume state, saved before every wait:
 * - `childIds` once carousel children exist (before polling them),
 * - `containerId` (+ childIds) once the container to publish exists (before polling it),
 * - `mediaId` right after media_publish answered.
 */
interface InstagramProgress {
  containerId?: string;
  childIds?: string[];
  mediaId?: string;
  pollStartedAt: number;
}

type Api = ReturnType<typeof createInstagramApi>;

export function createInstagramPublisher(
  config: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  // Instagram long-lived tokens are refreshed (extended) by a separate flow before they expire,
  // not with a refresh token: a 190 ends the publish with connection_expired.
  const newAuth = (request: PublishRequest) => new AuthSession(request, null, 'Instagram');

  function poll<T>(
    request: PublishRequest,
    progress: InstagramProgress,
    what: string,
    check: () => Promise<T | undefined>,
  ) {
    return pollUntil<T>({
      runtime,
      startedAt: progress.pollStartedAt,
      signal: request.signal,
      what,
      check,
    });
  }

  /** Polls a container until it is FINISHED or PUBLISHED; ERROR/EXPIRED end the publish. */
  function settle(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    progress: InstagramProgress,
    containerId: string,
  ): Promise<'FINISHED' | 'PUBLISHED'> {
    return poll(request, progress, `Instagram container ${containerId}`, async () => {
      const { statusCode, status } = await auth.call((token) =>
        api.containerStatus(token, containerId),
      );
      if (statusCode === 'FINISHED' || statusCode === 'PUBLISHED') return statusCode;
      if (statusCode === 'ERROR' || statusCode === 'EXPIRED') {
        // Not retryable: a resume would find the same container in the same state.
        throw fail(
          statusCode,
          `Instagram container ${containerId} ${statusCode}${status ? `: ${status}` : ''}`,
          false,
        );
      }
      return undefined; // IN_PROGRESS
    });
  }

  async function publish(request: PublishRequest): Promise<PublishOutcome> {
    const urls = request.post.mediaUrls;
    if (urls.length === 0) throw fail('invalid_params', 'Instagram needs media', false);
    const api = createInstagramApi(config, runtime, request.signal);
    const auth = newAuth(request);
    const igUserId = request.connection.externalId;
    const caption = request.post.content;
    const progress: InstagramProgress = { pollStartedAt: Date.now() };

    const [single] = urls;
    if (urls.length === 1 && single !== undefined) {
      const params: Record<string, string> =
        mediaKindOf(single) === 'photo'
          ? { image_url: single, caption }
          : { media_type: 'REELS', video_url: single, caption, share_to_feed: 'true' };
      progress.containerId = await auth.call((token) =>
        api.createContainer(token, igUserId, params),
      );
      await request.saveProgress({ ...progress });
      return finish(request, api, auth, progress);
    }

    const childIds: string[] = [];
    for (const url of urls) {
      // Carousel video items use media_type=VIDEO (Graph docs); images only need image_url.
      const params: Record<string, string> =
        mediaKindOf(url) === 'photo'
          ? { is_carousel_item: 'true', image_url: url }
          : { is_carousel_item: 'true', media_type: 'VIDEO', video_url: url };
      childIds.push(await auth.call((token) => api.createContainer(token, igUserId, params)));
    }
    progress.childIds = childIds;
    await request.saveProgress({ ...progress });
    return createCarouselAndFinish(request, api, auth, progress, caption);
  }

  async function createCarouselAndFinish(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    progress: InstagramProgress,
    caption: string,
  ): Promise<PublishOutcome> {
    const childIds = progress.childIds ?? [];
    // The parent can only be created from children that finished processing (videos take time).
    for (const childId of childIds) {
      if ((await settle(request, api, auth, progress, childId)) === 'PUBLISHED') {
        throw fail('invalid_state', `carousel item ${childId} is already published`, false);
      }
    }
    progress.containerId = await auth.call((token) =>
      api.createContainer(token, request.connection.externalId, {
        media_type: 'CAROUSEL',
        children: childIds.join(','),
        caption,
      }),
    );
    await request.saveProgress({ ...progress });
    return finish(request, api, auth, progress);
  }

  /** Container known: wait for it, then media_publish unless it is already PUBLISHED. */
  async function finish(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    progress: InstagramProgress,
  ): Promise<PublishOutcome> {
    const containerId = progress.containerId;
    if (containerId === undefined) throw new Error('finish() without a container id');
    if (progress.mediaId !== undefined) return published(request, api, auth, progress.mediaId);
    const state = await settle(request, api, auth, progress, containerId);
    if (state === 'PUBLISHED') {
      // Already live (the crash came after media_publish took effect but before its answer was
      // stored). Graph does not give the media id of a container: the account's latest media
      // with this caption is it (a first comment needs the media id). Not found, the container
      // id stands in as the platform post id and no permalink is known.
      const mediaId = await findPublishedMedia(request, api, auth);
      if (mediaId !== null) return published(request, api, auth, mediaId);
      return { kind: 'published', platformPostId: containerId, platformUrl: null };
    }
    await request.beforeCountedCall();
    const mediaId = await auth.call((token) =>
      api.publish(token, request.connection.externalId, containerId),
    );
    progress.mediaId = mediaId;
    await request.saveProgress({ ...progress });
    return published(request, api, auth, mediaId);
  }

  /** The newest of the account's recent media whose caption is the post's (null: none, or no answer). */
  async function findPublishedMedia(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
  ): Promise<string | null> {
    // An empty caption would match any captionless media: better no id than another post's.
    if (request.post.content === '') return null;
    try {
      const recent = await auth.call((token) =>
        api.recentMedia(token, request.connection.externalId),
      );
      return recent.find((item) => item.caption === request.post.content)?.id ?? null;
    } catch (error) {
      if (notThePlatforms(request.signal, error)) throw error;
      return null;
    }
  }

  async function published(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    mediaId: string,
  ): Promise<PublishOutcome> {
    // The post is live: a failing permalink lookup must not turn it into a failure (aborts
    // still propagate).
    let permalink: string | null = null;
    try {
      permalink = await auth.call((token) => api.permalink(token, mediaId));
    } catch (error) {
      if (notThePlatforms(request.signal, error)) throw error;
    }
    return { kind: 'published', platformPostId: mediaId, platformUrl: permalink };
  }

  /** The first comment, on the published media. */
  const sendComment: CommentSender = (request, mediaId, message) => {
    const api = createInstagramApi(config, runtime, request.signal);
    return newAuth(request).call((token) => api.comment(token, mediaId, message));
  };
  /** A comment an interrupted run may have made: Instagram lists a media's comments. */
  const findComment: CommentFinder = async (request, mediaId, message) => {
    const api = createInstagramApi(config, runtime, request.signal);
    const comments = await newAuth(request).call((token) => api.comments(token, mediaId));
    return comments.find((comment) => comment.text === message)?.id ?? null;
  };
  const withComment = (request: PublishRequest, main: () => Promise<PublishOutcome>) =>
    publishWithFirstComment('Instagram', request, sendComment, main, findComment);

  return {
    platform: 'instagram',
    validate: validateInstagram,
    publish: (request) =>
      runPublish(request.signal, () => withComment(request, () => publish(request))),
    resume: (request) =>
      runPublish(request.signal, () =>
        withComment(request, async () => {
          const progress = readProgress(request.target.resumeState);
          if (progress.containerId === undefined && progress.childIds === undefined) {
            return publish(request); // nothing was created (or recorded): start over
          }
          const api = createInstagramApi(config, runtime, request.signal);
          const auth = newAuth(request);
          if (progress.containerId !== undefined) return finish(request, api, auth, progress);
          return createCarouselAndFinish(request, api, auth, progress, request.post.content);
        }),
      ),
  };
}

function readProgress(state: Record<string, unknown> | null): InstagramProgress {
  const progress: InstagramProgress = {
    pollStartedAt: typeof state?.pollStartedAt === 'number' ? state.pollStartedAt : Date.now(),
  };
  if (typeof state?.containerId === 'string') progress.containerId = state.containerId;
  if (typeof state?.mediaId === 'string') progress.mediaId = state.mediaId;
  if (Array.isArray(state?.childIds) && state.childIds.every((id) => typeof id === 'string')) {
    progress.childIds = state.childIds as string[];
  }
  return progress;
}
