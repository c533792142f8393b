import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { findSent, intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { type Options, optionsOf, stringOption } from '../shared/options.ts';
import { fail } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { startPublishRun } from '../shared/publish-run.ts';
import { createPinterestApi, pinterestRefresher } from './api.ts';
import { boardIdOf } from './options.ts';
import { LABEL, type PinterestProgress, type PinterestRun, readProgress } from './run.ts';
import type { PinterestSettings } from './settings.ts';
import { validatePinterest } from './validate.ts';
import { uploadVideo } from './video.ts';

/** The intent step of POST /v5/pins. */
const CREATE_PIN = 'create_pin';

export function createPinterestPublisher(
  config: PinterestSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = pinterestRefresher(config, runtime);
  const run = (request: PublishRequest, stored: PinterestProgress | null) =>
    publish(
      startPublishRun(request, runtime, {
        label: LABEL,
        refresher,
        api: createPinterestApi(config, runtime, request.signal),
        progress: stored ?? { video: null },
      }),
    );
  return progressPublisher({
    platform: 'pinterest',
    validate: validatePinterest,
    readProgress,
    run,
  });
}

/** Looks for a Pin an earlier run sent; else readies the media and creates the Pin once. */
async function publish(run: PinterestRun): Promise<PublishOutcome> {
  const { request, auth, api } = run;
  const options = optionsOf(request.post.platformOptions, 'pinterest');
  const boardId = boardIdOf(request.post.platformOptions);
  if (boardId === undefined) {
    throw fail('invalid_params', 'Pinterest needs platform_options.pinterest.board_id', false);
  }
  const description = request.post.content;
  // An earlier run sent the Pin and stopped before recording Pinterest's answer: look for it.
  const sentBefore = intentAt(request, CREATE_PIN);
  if (sentBefore !== null) {
    const found = await findSentPin(run, sentBefore, boardId, description);
    if (found !== undefined) return publishedAs(found);
  }
  const mediaSource = await mediaSourceOf(run, options);
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
}

/**
 * The Pin's `media_source`: an uploaded video with its cover, one image URL or several
 * (a carousel). Pinterest fetches image and cover URLs itself: each passes our guard first.
 */
async function mediaSourceOf(
  run: PinterestRun,
  options: Options,
): Promise<Record<string, unknown>> {
  const { request, runtime } = run;
  const urls = request.post.mediaUrls;
  const first = urls[0];
  if (first === undefined) {
    throw fail('invalid_params', 'Pinterest needs an image or a video', false);
  }
  if (mediaKindOf(first) === 'video') {
    const cover = stringOption(options, 'cover_image_url');
    if (cover !== undefined) await assertMediaAllowed(cover, runtime, request.signal);
    // A video Pin needs a cover: the image given, else the video's first frame.
    return {
      source_type: 'video_id',
      media_id: await uploadVideo(run, first),
      ...(cover === undefined ? { cover_image_key_frame_time: 0 } : { cover_image_url: cover }),
    };
  }
  for (const url of urls) await assertMediaAllowed(url, runtime, request.signal);
  return urls.length === 1
    ? { source_type: 'image_url', url: first }
    : { source_type: 'multiple_image_urls', items: urls.map((url) => ({ url })) };
}

/**
 * The Pin an earlier run sent, among the board's latest (same description, created after its
 * intent). When the board cannot be read the outcome stays unknown: never sent twice.
 */
async function findSentPin(
  run: PinterestRun,
  intent: PublishIntent,
  boardId: string,
  description: string,
): Promise<string | undefined> {
  const { auth, api } = run;
  const match = await findSent({
    label: LABEL,
    intent,
    read: () => auth.call((token) => api.boardPins(token, boardId)),
    same: (candidate) => candidate.description === description,
    pick: 'newest',
  });
  return match?.id;
}

const publishedAs = (id: string) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: `https://www.pinterest.com/pin/${id}/`,
  }) satisfies PublishOutcome;
