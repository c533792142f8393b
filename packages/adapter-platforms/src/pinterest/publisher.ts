import type {
  PlatformPublisher,
  PostDraft,
  Problem,
  PublishIntent,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { findSent, intentAt, sendOnce } from '../shared/intent.ts';
import { mediaKindOf, oneVideoOrPhotos } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { optionsOf, stringOption } from '../shared/options.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { createPinterestApi, pinterestRefresher } from './api.ts';
import { boardIdOf } from './options.ts';
import type { PinterestSettings } from './settings.ts';

/** A carousel Pin takes 2 to 5 images. */
export const PINTEREST_MAX_IMAGES = 5;
const LABEL = 'Pinterest';
/** The intent step of POST /v5/pins. */
const CREATE_PIN = 'create_pin';

/**
 * Stored on the target (saveProgress) once the video's bytes are uploaded, so a resume polls
 * that media instead of uploading again. Image Pins need nothing stored: Pinterest fetches the
 * URLs itself, and the Pin's creation is covered by the intent.
 */
interface PinterestProgress {
  video: { mediaId: string; pollStartedAt: number } | null;
}

export function createPinterestPublisher(
  config: PinterestSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = pinterestRefresher(config, runtime);

  async function run(request: PublishRequest, stored: PinterestProgress | null) {
    const auth = new AuthSession(request, refresher, LABEL);
    const api = createPinterestApi(config, runtime, request.signal);
    const media = createMediaFetcher(runtime, request.signal);
    const options = optionsOf(request.post.platformOptions, 'pinterest');
    const named = boardIdOf(request.post.platformOptions);
    if (named === undefined) {
      throw fail('invalid_params', 'Pinterest needs platform_options.pinterest.board_id', false);
    }
    const boardId: string = named;
    const progress: PinterestProgress = stored ?? { video: null };
    const description = request.post.content;
    const urls = request.post.mediaUrls;

    // An earlier run sent the Pin and stopped before recording Pinterest's answer: look for it.
    const sentBefore = intentAt(request, CREATE_PIN);
    if (sentBefore !== null) {
      const found = await findSentPin(sentBefore);
      if (found !== undefined) return publishedAs(found);
    }

    let mediaSource: Record<string, unknown>;
    const first = urls[0];
    if (first === undefined) {
      throw fail('invalid_params', 'Pinterest needs an image or a video', false);
    }
    if (mediaKindOf(first) === 'video') {
      const cover = stringOption(options, 'cover_image_url');
      if (cover !== undefined) await assertMediaAllowed(cover, runtime, request.signal);
      // A video Pin needs a cover: the image given, else the video's first frame.
      mediaSource = {
        source_type: 'video_id',
        media_id: await uploadVideo(first),
        ...(cover === undefined ? { cover_image_key_frame_time: 0 } : { cover_image_url: cover }),
      };
    } else {
      // Pinterest fetches the images itself: each URL passes our own guard first.
      for (const url of urls) await assertMediaAllowed(url, runtime, request.signal);
      mediaSource =
        urls.length === 1
          ? { source_type: 'image_url', url: first }
          : { source_type: 'multiple_image_urls', items: urls.map((url) => ({ url })) };
    }

    const title = stringOption(options, 'title');
    const link = stringOption(options, 'link');
    const altText = stringOption(options, 'alt_text');
    const pin: Record<string, unknown> = {
      board_id: boardId,
      description,
      media_source: mediaSource,
      ...(title === undefined ? {} : { title }),
      ...(link === undefined ? {} : { link }),
      ...(altText === undefined ? {} : { alt_text: altText }),
    };
    await request.beforeCountedCall();
    const id = await sendOnce(request, CREATE_PIN, () =>
      auth.call((token) => api.createPin(token, pin)),
    );
    return publishedAs(id);

    /**
     * The Pin an earlier run sent, among the board's latest (same description, created after its
     * intent). When the board cannot be read the outcome stays unknown: never sent twice.
     */
    async function findSentPin(intent: PublishIntent): Promise<string | undefined> {
      const match = await findSent({
        label: LABEL,
        intent,
        read: () => auth.call((token) => api.boardPins(token, boardId)),
        same: (candidate) => candidate.description === description,
        pick: 'newest',
      });
      return match?.id;
    }

    /** The video: registered, its bytes streamed to the upload URL, then processed. */
    async function uploadVideo(url: string): Promise<string> {
      let video = progress.video;
      if (video === null) {
        // Registration creates nothing visible: after a failed upload the next run registers
        // again (the upload URL's signed policy may have expired meanwhile).
        const upload = await auth.call((token) => api.registerVideo(token));
        const body = await media.whole(url);
        try {
          await api.uploadVideo(upload, body);
        } finally {
          discard(body.body);
        }
        video = { mediaId: upload.mediaId, pollStartedAt: Date.now() };
        progress.video = video;
        await request.saveProgress({ ...progress, video: { ...video } } as never);
      }
      const { mediaId, pollStartedAt } = video;
      await pollUntil<true>({
        intervalMs: runtime.pollIntervalMs,
        timeoutMs: runtime.pollTimeoutMs,
        startedAt: pollStartedAt,
        signal: request.signal,
        what: `Pinterest video ${mediaId}`,
        check: async () => {
          const status = await auth.call((token) => api.mediaStatus(token, mediaId));
          if (status === 'succeeded') return true;
          if (status === 'failed') {
            throw fail(
              'video_processing_failed',
              `Pinterest could not process video ${mediaId} (status failed)`,
              false,
            );
          }
          return undefined; // registered, processing
        },
      });
      return mediaId;
    }
  }

  return progressPublisher({
    platform: 'pinterest',
    validate: validatePinterest,
    readProgress,
    run,
  });
}

const publishedAs = (id: string) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: `https://www.pinterest.com/pin/${id}/`,
  }) satisfies PublishOutcome;

function readProgress(state: Record<string, unknown> | null): PinterestProgress | null {
  if (!state) return null;
  const video = state.video;
  if (typeof video !== 'object' || video === null) return { video: null };
  const v = video as Record<string, unknown>;
  if (typeof v.mediaId !== 'string' || v.mediaId === '') return { video: null };
  return {
    video: {
      mediaId: v.mediaId,
      pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : Date.now(),
    },
  };
}

/**
 * Pinterest checks beyond the shared rules (which require media and bound the description to
 * 500 characters): a board to save the Pin to, one video or 1 to 5 images.
 */
export function validatePinterest(draft: PostDraft): Problem[] {
  const problems: Problem[] = [];
  if (boardIdOf(draft.platformOptions) === undefined) {
    problems.push({
      field: 'platform_options.pinterest.board_id',
      message: 'is required: the id of the board the Pin is saved to',
    });
  }
  problems.push(...oneVideoOrPhotos('pinterest', draft.mediaUrls, PINTEREST_MAX_IMAGES));
  return problems;
}
