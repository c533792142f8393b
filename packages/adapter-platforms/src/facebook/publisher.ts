import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { type PublishRun, startPublishRun } from '../shared/publish-run.ts';
import { createFacebookApi } from './api.ts';
import { findSentPost } from './lookup.ts';
import { type FacebookProgress, freshProgress, readProgress } from './progress.ts';
import type { FacebookSettings } from './settings.ts';
import { validateFacebook } from './validate.ts';

const LABEL = 'Facebook';
/** Intent steps: the calls that make something visible on the Page. */
const STEP = { feed: 'feed', photo: 'photo', video: 'video' } as const;
/** video_status values after which waiting longer changes nothing. */
const VIDEO_FAILED = new Set(['error', 'expired', 'upload_failed']);

export function createFacebookPublisher(
  config: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  const run = (request: PublishRequest, stored: FacebookProgress | null) =>
    publish(
      startPublishRun(request, runtime, {
        label: LABEL,
        // The connection's token is a Page token: Facebook gives no refresh token for it (it
        // lasts while the user keeps the app), so a 190 ends the run with connection_expired.
        refresher: null,
        api: createFacebookApi(config, runtime, request.signal),
        progress: stored ?? freshProgress(request.post.mediaUrls.length),
      }),
    );

  const comment = {
    label: LABEL,
    send: (request: PublishRequest, objectId: string, message: string) => {
      const api = createFacebookApi(config, runtime, request.signal);
      const auth = new AuthSession(request, null, LABEL);
      return auth.call((token) => api.comment(token, objectId, message));
    },
    /** A comment an interrupted run may have made: the Page reads its post's comments. */
    find: async (request: PublishRequest, objectId: string, message: string) => {
      const api = createFacebookApi(config, runtime, request.signal);
      const auth = new AuthSession(request, null, LABEL);
      const comments = await auth.call((token) => api.comments(token, objectId));
      return comments.find((made) => made.message === message)?.id ?? null;
    },
  };
  return progressPublisher({
    platform: 'facebook',
    validate: validateFacebook,
    readProgress,
    run,
    comment,
  });
}

type FacebookRun = PublishRun<ReturnType<typeof createFacebookApi>, FacebookProgress>;

/**
 * A video already sent is followed; what an earlier run may have sent is looked for; else the
 * post is sent once: a video, one photo, or /feed (with several photos attached).
 */
async function publish(run: FacebookRun): Promise<PublishOutcome> {
  const { request, runtime, progress } = run;
  const pageId = request.connection.externalId;
  const urls = request.post.mediaUrls;
  const message = request.post.content;
  // A video already sent is followed by its id, never sent again.
  if (progress.video)
    return waitForVideo(run, progress.video.videoId, progress.video.pollStartedAt);

  // An earlier run sent something and stopped before recording Facebook's answer: look for it.
  const intent = request.intent;
  if (intent !== null) {
    const edge = intent.step === STEP.video ? 'videos' : 'posts';
    const { auth, api } = run;
    const found = await findSentPost({ auth, api, pageId, message, intent, edge });
    if (found !== undefined && edge === 'videos') return followVideo(run, found);
    if (found !== undefined) return publishedAs(found);
  }

  // Before anything is created: a refused third photo must not leave two uploaded for nothing.
  for (const [index, url] of urls.entries()) {
    if (!progress.photos[index]) await assertMediaAllowed(url, runtime, request.signal);
  }

  await request.beforeCountedCall();
  if (urls.map(mediaKindOf).includes('video')) return sendVideo(run, pageId, message);
  if (urls.length === 1 && urls[0] !== undefined) {
    const url = urls[0];
    const postId = await sendOnce(request, STEP.photo, () =>
      run.auth.call((token) => run.api.photo(token, pageId, { url, message })),
    );
    return publishedAs(postId);
  }
  return sendFeed(run, pageId, message);
}

/** POST /{page}/videos under an intent, then its processing followed. */
async function sendVideo(run: FacebookRun, pageId: string, message: string) {
  const urls = run.request.post.mediaUrls;
  const url = urls[0];
  if (url === undefined || urls.length > 1) {
    throw fail('invalid_params', 'Facebook takes one video per post, without photos', false);
  }
  const videoId = await sendOnce(run.request, STEP.video, () =>
    run.auth.call((token) => run.api.video(token, pageId, { file_url: url, description: message })),
  );
  return followVideo(run, videoId);
}

/** POST /{page}/feed under an intent: the text, its link, and several photos attached. */
async function sendFeed(run: FacebookRun, pageId: string, message: string) {
  const { request, auth, api, progress } = run;
  const urls = request.post.mediaUrls;
  const params: Record<string, string> = { message };
  if (urls.length > 1) {
    // Unpublished photos stay invisible until attached: uploading one twice does no harm, so
    // no intent; each id is saved at once so a resume does not upload it again.
    for (const [index, url] of urls.entries()) {
      if (progress.photos[index]) continue;
      progress.photos[index] = await auth.call((token) =>
        api.photo(token, pageId, { url, published: 'false' }),
      );
      await run.save();
    }
    params.attached_media = JSON.stringify(progress.photos.map((id) => ({ media_fbid: id })));
  }
  const link = linkOf(request);
  if (link) params.link = link;
  const postId = await sendOnce(request, STEP.feed, () =>
    auth.call((token) => api.feed(token, pageId, params)),
  );
  return publishedAs(postId);
}

/** Stores the video id (which ends the intent), then waits for its processing. */
async function followVideo(run: FacebookRun, videoId: string): Promise<PublishOutcome> {
  run.progress.video = { videoId, pollStartedAt: Date.now() };
  await run.save();
  return waitForVideo(run, videoId, run.progress.video.pollStartedAt);
}

async function waitForVideo(
  run: FacebookRun,
  videoId: string,
  startedAt: number,
): Promise<PublishOutcome> {
  const { runtime, auth, api } = run;
  await pollUntil<true>({
    runtime,
    startedAt,
    signal: run.request.signal,
    what: `Facebook video ${videoId}`,
    check: async () => {
      const status = await auth.call((token) => api.videoStatus(token, videoId));
      if (status.error !== null || VIDEO_FAILED.has(status.status)) {
        // Not retryable: a resume would find the same video in the same state.
        throw fail(
          'video_processing_failed',
          `Facebook could not process video ${videoId}: ${status.error ?? status.status}`,
          false,
        );
      }
      return status.status === 'ready' ? true : undefined; // processing, uploading
    },
  });
  // A video's public id is the video's own (facebook.com/{video-id} opens it).
  return publishedAs(videoId);
}

const publishedAs = (id: string) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: `https://www.facebook.com/${id}`,
  }) satisfies PublishOutcome;

function linkOf(request: PublishRequest): string | undefined {
  const own = request.post.platformOptions.facebook;
  const link = own && typeof own === 'object' ? (own as Record<string, unknown>).link : undefined;
  return typeof link === 'string' && link !== '' ? link : undefined;
}
