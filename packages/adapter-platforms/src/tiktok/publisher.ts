import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { outcomeUnknown, sendOnce } from '../shared/intent.ts';
import { firstLine, type MediaKind, mediaKindOf } from '../shared/media.ts';
import { boolOption, type Options, optionsOf, stringOption } from '../shared/options.ts';
import { fail, runPublish } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { type CreatorInfo, createTiktokApi, tiktokRefresher } from './api.ts';
import type { TiktokSettings } from './settings.ts';
import { TIKTOK_PHOTO_TITLE_MAX, validateTiktok } from './validate.ts';

/** What is stored on the target (saveProgress) right after init, before polling. */
interface TiktokProgress {
  publishId: string;
  draft: boolean;
  mediaType: MediaKind;
  /** From creator info; builds the post URL. null for drafts (creator info is not queried). */
  creatorUsername: string | null;
  pollStartedAt: number;
}

export function createTiktokPublisher(
  config: TiktokSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  const refresher = tiktokRefresher(config, runtime);

  async function publish(request: PublishRequest): Promise<PublishOutcome> {
    const api = createTiktokApi(config, runtime, request.signal);
    const auth = new AuthSession(request, refresher, 'TikTok');
    const options = optionsOf(request.post.platformOptions, 'tiktok');
    const urls = request.post.mediaUrls;
    const first = urls[0];
    if (first === undefined)
      throw fail('invalid_params', 'TikTok needs a video or photo URL', false);
    const mediaType: MediaKind = urls.every((url) => mediaKindOf(url) === 'photo')
      ? 'photo'
      : 'video';
    const draft = boolOption(options, 'tiktokIsDraft') === true;

    // Creator info is what direct posting is checked against (privacy level, interaction
    // switches). The inbox/MEDIA_UPLOAD flow lets the user pick those in the app, so drafts skip it.
    const creator = draft ? null : await auth.call((token) => api.creatorInfo(token));
    const privacy = creator ? choosePrivacy(creator, stringOption(options, 'tiktokPrivacy')) : null;
    const content = request.post.content;
    // The one call that creates something on TikTok, under a durable intent: a worker that
    // dies while it is in flight leaves a trace, and the next run does not post again.
    const init = (endpoint: 'video' | 'inbox_video' | 'content', body: unknown) =>
      sendOnce(request, 'init', () => auth.call((token) => api.init(endpoint, token, body)));

    await request.beforeCountedCall();
    let publishId: string;
    if (mediaType === 'video' && draft) {
      // Inbox upload: source_info only; caption and settings are completed in the TikTok app.
      publishId = await init('inbox_video', {
        source_info: { source: 'PULL_FROM_URL', video_url: first },
      });
    } else if (mediaType === 'video') {
      publishId = await init('video', {
        post_info: {
          title: content,
          privacy_level: privacy,
          ...interactionFlags(options, creator, 'video'),
          brand_content_toggle: boolOption(options, 'tiktokBrandContent') ?? false,
          brand_organic_toggle: boolOption(options, 'tiktokBrandOrganic') ?? false,
          is_aigc: boolOption(options, 'tiktokIsAigc') ?? false,
        },
        source_info: { source: 'PULL_FROM_URL', video_url: first },
      });
    } else {
      publishId = await init('content', {
        media_type: 'PHOTO',
        post_mode: draft ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
        post_info: {
          title: photoTitle(content),
          description: content,
          // privacy_level is required for DIRECT_POST only; not sent for MEDIA_UPLOAD
          // (the user picks it in the app). Unconfirmed whether TikTok tolerates it there.
          ...(privacy === null ? {} : { privacy_level: privacy }),
          ...interactionFlags(options, creator, 'photo'),
          auto_add_music: boolOption(options, 'tiktokAutoAddMusic') ?? false,
          brand_content_toggle: boolOption(options, 'tiktokBrandContent') ?? false,
          brand_organic_toggle: boolOption(options, 'tiktokBrandOrganic') ?? false,
        },
        source_info: {
          source: 'PULL_FROM_URL',
          photo_cover_index: 0,
          photo_images: urls.map((url) => proxiedPhotoUrl(url, config.photoProxyUrl)),
        },
      });
    }

    const progress: TiktokProgress = {
      publishId,
      draft,
      mediaType,
      creatorUsername: creator?.username ?? null,
      pollStartedAt: Date.now(),
    };
    // Stored BEFORE waiting: a resume polls this publish_id instead of posting again.
    await request.saveProgress({ ...progress });
    return waitForStatus(request, auth, progress);
  }

  async function waitForStatus(
    request: PublishRequest,
    auth: AuthSession,
    progress: TiktokProgress,
  ): Promise<PublishOutcome> {
    const api = createTiktokApi(config, runtime, request.signal);
    return pollUntil<PublishOutcome>({
      runtime,
      startedAt: progress.pollStartedAt,
      signal: request.signal,
      what: `TikTok publish ${progress.publishId}`,
      check: async () => {
        const status = await auth.call((token) => api.status(token, progress.publishId));
        switch (status.status) {
          case 'PUBLISH_COMPLETE': {
            // The public post id may be missing for a while (moderation); the publish_id then
            // stands in and no URL is given.
            const postId = status.publicPostIds[0];
            return {
              kind: 'published',
              platformPostId: postId ?? progress.publishId,
              platformUrl: postId ? postUrl(progress, postId) : null,
            };
          }
          case 'SEND_TO_USER_INBOX':
            // Terminal for drafts: the content waits in the user's inbox. A direct post is not
            // expected to pass through it; keep polling in that case.
            return progress.draft
              ? { kind: 'published', platformPostId: progress.publishId, platformUrl: null }
              : undefined;
          case 'FAILED': {
            // Not retryable: a retry resumes this same publish_id and would see FAILED again.
            const reason = status.failReason ?? 'FAILED';
            return {
              kind: 'failed',
              code: reason,
              message: `TikTok publish ${progress.publishId} failed: ${reason}`,
              retryable: false,
            };
          }
          default:
            return undefined; // PROCESSING_UPLOAD, PROCESSING_DOWNLOAD
        }
      },
    });
  }

  return {
    platform: 'tiktok',
    validate: validateTiktok,
    publish: (request) => runPublish(request.signal, () => publish(request)),
    resume: (request) =>
      runPublish(request.signal, async () => {
        const progress = readProgress(request.target.resumeState);
        if (progress === null) {
          // An init may have been sent without its publish_id being recorded: TikTok cannot be
          // asked for a publish without its id, so it is never sent again.
          if (request.intent !== null) return outcomeUnknown('TikTok', request.intent);
          // Nothing reached TikTok: start over.
          return publish(request);
        }
        return waitForStatus(request, new AuthSession(request, refresher, 'TikTok'), progress);
      }),
  };
}

/**
 * The privacy level sent with a direct post. An explicit `tiktokPrivacy` must be one of the
 * creator's options. Without one: SELF_ONLY when the creator offers it (the safe default, and the
 * only level unaudited clients may use), else the creator's first option.
 */
export function choosePrivacy(creator: CreatorInfo, requested: string | undefined): string {
  const offered = creator.privacyLevelOptions;
  if (requested !== undefined) {
    if (!offered.includes(requested)) {
      throw fail(
        'privacy_level_option_mismatch',
        `privacy level ${requested} is not one of the creator's options (${offered.join(', ') || 'none'})`,
        false,
      );
    }
    return requested;
  }
  const chosen = offered.includes('SELF_ONLY') ? 'SELF_ONLY' : offered[0];
  if (chosen === undefined) {
    throw fail('privacy_level_option_mismatch', 'the creator offers no privacy level', false);
  }
  return chosen;
}

/**
 * The negated allow* options. A switch the creator disabled in the app stays disabled whatever
 * the post asks (TikTok's UX rules). Allowed by default otherwise. Duet and stitch are video-only.
 */
function interactionFlags(
  options: Options,
  creator: CreatorInfo | null,
  mediaType: MediaKind,
): Record<string, boolean> {
  const disableComment =
    creator?.commentDisabled === true || boolOption(options, 'tiktokAllowComments') === false;
  if (mediaType === 'photo') return { disable_comment: disableComment };
  return {
    disable_comment: disableComment,
    disable_duet:
      creator?.duetDisabled === true || boolOption(options, 'tiktokAllowDuet') === false,
    disable_stitch:
      creator?.stitchDisabled === true || boolOption(options, 'tiktokAllowStitch') === false,
  };
}

/** Photo title: the first line of the content, cut to 90 UTF-16 units; the description is the whole content. */
export const photoTitle = (content: string): string =>
  firstLine(content).slice(0, TIKTOK_PHOTO_TITLE_MAX);

/**
 * Photos are only pulled from domains verified with TikTok, so with a proxy configured each
 * photo URL becomes `${proxy}?url=<encodeURIComponent(original)>` (`&url=` if the proxy URL
 * already has a query).
 */
export function proxiedPhotoUrl(url: string, proxy: string | undefined): string {
  if (!proxy) return url;
  return `${proxy}${proxy.includes('?') ? '&' : '?'}url=${encodeURIComponent(url)}`;
}

/** https://www.tiktok.com/@user/video/<id> (photo posts: /photo/<id>, path unconfirmed). */
function postUrl(progress: TiktokProgress, postId: string): string | null {
  if (!progress.creatorUsername) return null;
  const kind = progress.mediaType === 'photo' ? 'photo' : 'video';
  return `https://www.tiktok.com/@${progress.creatorUsername}/${kind}/${postId}`;
}

function readProgress(state: Record<string, unknown> | null): TiktokProgress | null {
  const publishId = state?.publishId;
  if (typeof publishId !== 'string' || publishId === '') return null;
  return {
    publishId,
    draft: state?.draft === true,
    mediaType: state?.mediaType === 'photo' ? 'photo' : 'video',
    creatorUsername: typeof state?.creatorUsername === 'string' ? state.creatorUsername : null,
    pollStartedAt: typeof state?.pollStartedAt === 'number' ? state.pollStartedAt : Date.now(),
  };
}
