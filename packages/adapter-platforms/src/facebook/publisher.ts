import type {
  PlatformPublisher,
  PostDraft,
  Problem,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../config.ts';
import { AuthSession } from '../shared/auth.ts';
import { outcomeUnknown, sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { fail, PublishFailure, runPublish } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { createFacebookApi, type RecentPagePost } from './api.ts';
import { FACEBOOK_SETTINGS, type FacebookSettings } from './settings.ts';

const LABEL = 'Facebook';
/** Intent steps: the calls that make something visible on the Page. */
const STEP = { feed: 'feed', photo: 'photo', video: 'video' } as const;
export const FACEBOOK_MAX_PHOTOS = 10;
/** Clock skew allowed between us and Facebook when matching a post to an intent. */
const INTENT_SKEW_MS = 5 * 60_000;

/** Stored as work finishes: a resume reuses uploaded photos and polls a sent video. */
interface FacebookProgress {
  /** Per media URL, the unpublished photo id (multi-photo posts). */
  photos: (string | null)[];
  video: { videoId: string; pollStartedAt: number } | null;
}

export function createFacebookPublisher(
  settings: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  const config = withDefaults(settings);

  async function run(request: PublishRequest, stored: FacebookProgress | null) {
    // Page tokens do not expire while the user keeps the app; there is nothing to refresh.
    const auth = new AuthSession(request, null, LABEL);
    const api = createFacebookApi(config, runtime, request.signal);
    const pageId = request.connection.externalId;
    const urls = request.post.mediaUrls;
    const message = request.post.content;
    const progress: FacebookProgress = stored ?? { photos: urls.map(() => null), video: null };
    const save = () => request.saveProgress(structuredClone(progress) as never);

    // A video already sent is followed by its id, never sent again.
    if (progress.video) return waitForVideo(progress.video.videoId, progress.video.pollStartedAt);

    // An earlier run sent the post and stopped before recording Facebook's answer: look for it.
    const sentBefore = request.intent;
    if (sentBefore !== null) {
      const found = await findSent(sentBefore.step, sentBefore.at.getTime());
      if (found !== undefined) {
        if (sentBefore.step === STEP.video) return waitForVideo(found, Date.now());
        return publishedAs(found);
      }
    }

    const kinds = urls.map(mediaKindOf);
    if (kinds.includes('video')) {
      const url = urls[0];
      if (url === undefined || urls.length > 1) {
        throw fail('invalid_params', 'Facebook takes one video per post, without photos', false);
      }
      const videoId = await sendOnce(request, STEP.video, () =>
        auth.call((token) => api.video(token, pageId, { file_url: url, description: message })),
      );
      progress.video = { videoId, pollStartedAt: Date.now() };
      await save();
      return waitForVideo(videoId, progress.video.pollStartedAt);
    }
    if (urls.length === 1 && urls[0] !== undefined) {
      const url = urls[0];
      const postId = await sendOnce(request, STEP.photo, () =>
        auth.call((token) => api.photo(token, pageId, { url, message })),
      );
      return publishedAs(postId);
    }
    const params: Record<string, string> = { message };
    if (urls.length > 1) {
      // Unpublished photos are invisible until attached: uploading one twice does no harm.
      for (const [index, url] of urls.entries()) {
        if (progress.photos[index]) continue;
        progress.photos[index] = await auth.call((token) =>
          api.photo(token, pageId, { url, published: 'false' }),
        );
        await save();
      }
      params.attached_media = JSON.stringify(progress.photos.map((id) => ({ media_fbid: id })));
    }
    const link = linkOf(request);
    if (link) params.link = link;
    const postId = await sendOnce(request, STEP.feed, () =>
      auth.call((token) => api.feed(token, pageId, params)),
    );
    return publishedAs(postId);

    /**
     * What an earlier run sent, among the Page's latest posts (videos: its latest videos) with
     * the same text, created after its intent. When Facebook refuses the lookup, the outcome
     * stays unknown rather than posting twice.
     */
    async function findSent(step: string, sentAt: number): Promise<string | undefined> {
      let recent: RecentPagePost[];
      try {
        recent = await auth.call((token) =>
          api.recent(token, pageId, step === STEP.video ? 'videos' : 'posts'),
        );
      } catch (error) {
        if (!(error instanceof PublishFailure) || error.outcome.kind === 'published') throw error;
        if (error.outcome.kind === 'throttled') throw error;
        if (error.outcome.kind === 'failed' && error.outcome.retryable) throw error;
        const unknown = outcomeUnknown(LABEL, sentBefore ?? { step, at: new Date() });
        const why = 'message' in error.outcome ? error.outcome.message : 'refused';
        throw new PublishFailure({
          ...unknown,
          message: `${unknown.message} (looking it up failed: ${why})`,
        });
      }
      return recent.find(
        (candidate) =>
          candidate.message === message && candidate.createdAt >= sentAt - INTENT_SKEW_MS,
      )?.id;
    }

    async function waitForVideo(videoId: string, startedAt: number): Promise<PublishOutcome> {
      await pollUntil<true>({
        intervalMs: runtime.pollIntervalMs,
        timeoutMs: runtime.pollTimeoutMs,
        startedAt,
        signal: request.signal,
        what: `Facebook video ${videoId}`,
        check: async () => {
          const status = await auth.call((token) => api.videoStatus(token, videoId));
          if (status.status === 'ready') return true;
          if (status.status === 'error' || status.error !== null) {
            throw fail(
              'video_processing_failed',
              `Facebook could not process video ${videoId}: ${status.error ?? status.status}`,
              false,
            );
          }
          return undefined; // processing, uploading
        },
      });
      return publishedAs(videoId);
    }
  }

  return {
    platform: 'facebook',
    validate: validateFacebook,
    publish: (request) => runPublish(request.signal, () => run(request, null)),
    resume: (request) =>
      runPublish(request.signal, () =>
        run(request, readProgress(request.target.resumeState, request.post.mediaUrls.length)),
      ),
  };
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

function withDefaults(settings: FacebookSettings): FacebookSettings {
  const defaults = Object.fromEntries(
    Object.entries(FACEBOOK_SETTINGS).map(([key, spec]) => [
      key,
      (spec as { default?: string }).default,
    ]),
  );
  const given = Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined && value !== ''),
  );
  return { ...defaults, ...given } as FacebookSettings;
}

function readProgress(
  state: Record<string, unknown> | null,
  mediaCount: number,
): FacebookProgress | null {
  if (!state || !Array.isArray(state.photos)) return null;
  const photos = state.photos.map((item) => (typeof item === 'string' ? item : null));
  while (photos.length < mediaCount) photos.push(null);
  const v = state.video as Record<string, unknown> | null | undefined;
  const video =
    v && typeof v.videoId === 'string'
      ? {
          videoId: v.videoId,
          pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : Date.now(),
        }
      : null;
  return { photos, video };
}

/** Facebook checks beyond the shared rules: one video, or up to 10 photos, not both. */
export function validateFacebook(draft: PostDraft): Problem[] {
  const kinds = draft.mediaUrls.map(mediaKindOf);
  const photos = kinds.filter((kind) => kind === 'photo').length;
  const videos = kinds.length - photos;
  if (photos > 0 && videos > 0) {
    return [{ field: 'media_urls', message: 'facebook cannot mix photos and videos in one post' }];
  }
  if (videos > 1) return [{ field: 'media_urls', message: 'facebook takes one video per post' }];
  if (photos > FACEBOOK_MAX_PHOTOS) {
    return [
      {
        field: 'media_urls',
        message: `facebook takes at most ${FACEBOOK_MAX_PHOTOS} photos per post`,
      },
    ];
  }
  return [];
}
