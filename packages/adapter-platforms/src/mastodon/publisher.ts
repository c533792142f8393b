import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { FIRST_COMMENT } from '../shared/first-comment.ts';
import { afterMainPost, type ThreadPart } from '../shared/follow-ups.ts';
import { intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { optionsOf } from '../shared/options.ts';
import { failedOutcome, PublishFailure } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { type CreatedStatus, createMastodonApi, type StatusBody } from './api.ts';
import { instanceOf, instanceRuntime } from './instance.ts';
import { visibilityOf } from './options.ts';
import { freshProgress, type MastodonProgress, readProgress } from './progress.ts';
import type { MastodonSettings } from './settings.ts';
import { validateForInstance, validateMastodon } from './validate.ts';

const LABEL = 'Mastodon';
/** The intent step of the main status. */
const MAIN_STATUS = 'status';
/** The intent step of follow-up n (`thread_0`, ...). */
const FOLLOW_UP = 'thread_';
/**
 * Mastodon remembers an Idempotency-Key for an hour: a status sent again under its key within
 * that time comes back as the first one. Past this margin an earlier send is not replayed.
 */
export const IDEMPOTENCY_WINDOW_MS = 50 * 60_000;

/** The key of one part of one target: the same on every run, so a resend is a replay. */
export const idempotencyKeyOf = (targetId: string, step: string): string =>
  `social-publisher:${targetId}:${step}`;

export function createMastodonPublisher(
  _settings: MastodonSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  // The instance is the user's: its calls go through the SSRF guard, like media.
  const runtime = withRedirectingMedia(instanceRuntime(baseRuntime));

  /**
   * One status of this target (`step` names it), its media uploaded first. `counted`: the call
   * the connection's pacing counts (the main status). `underIntent`: the caller already sends it
   * under its intent (the shared first-comment runner), else it is sent under one here.
   */
  async function sendStatus(
    request: PublishRequest,
    step: string,
    part: { content: string; mediaUrls: readonly string[] },
    inReplyTo: string | undefined,
    how: { counted?: boolean; underIntent?: boolean } = {},
  ): Promise<CreatedStatus> {
    const instance = instanceOf(request.connection.platformData);
    const api = createMastodonApi(instance, runtime, request.signal);
    const auth = new AuthSession(request, null, LABEL);
    const earlier = intentAt(request, step);
    if (earlier && Date.now() - earlier.at.getTime() > IDEMPOTENCY_WINDOW_MS) {
      throw new PublishFailure(tooLateToReplay(earlier));
    }
    const media = createMediaFetcher(runtime, request.signal);
    const mediaIds: string[] = [];
    for (const url of part.mediaUrls) {
      mediaIds.push(await uploadMedia(request, api, auth, media, url));
    }
    const visibility = visibilityOf(optionsOf(request.post.platformOptions, 'mastodon'));
    const body: StatusBody = {
      status: part.content,
      media_ids: mediaIds,
      ...(inReplyTo ? { in_reply_to_id: inReplyTo } : {}),
      ...(visibility ? { visibility } : {}),
    };
    if (how.counted) await request.beforeCountedCall();
    const key = idempotencyKeyOf(request.target.id, step);
    const send = () => auth.call((token) => api.createStatus(token, body, key));
    // An earlier run sent this very status: the same key makes the instance answer the status
    // it made then (or make it now, if it never arrived). The intent keeps its first time.
    if (earlier || how.underIntent) return send();
    return sendOnce(request, step, send);
  }

  /** POST /api/v2/media streamed from the media URL, then polled until processed (202). */
  async function uploadMedia(
    request: PublishRequest,
    api: ReturnType<typeof createMastodonApi>,
    auth: AuthSession,
    media: ReturnType<typeof createMediaFetcher>,
    url: string,
  ): Promise<string> {
    const uploaded = await auth.call(async (token) => {
      // Fetched again for a retried call: a stream is read once.
      const file = await media.whole(url);
      try {
        const contentType =
          file.contentType === 'application/octet-stream'
            ? mediaKindOf(url) === 'photo'
              ? 'image/jpeg'
              : 'video/mp4'
            : file.contentType;
        return await api.uploadMedia(token, { ...file, contentType });
      } finally {
        discard(file.body);
      }
    });
    if (uploaded.ready) return uploaded.id;
    await pollUntil<true>({
      runtime,
      startedAt: Date.now(),
      signal: request.signal,
      what: `Mastodon media ${uploaded.id}`,
      check: async () =>
        (await auth.call((token) => api.mediaReady(token, uploaded.id))) ? true : undefined,
    });
    return uploaded.id;
  }

  async function run(
    request: PublishRequest,
    stored: MastodonProgress | null,
  ): Promise<PublishOutcome> {
    const progress = stored ?? freshProgress();
    const save = () => request.saveProgress({ ...progress, threadIds: [...progress.threadIds] });
    if (progress.statusId === null) {
      const main = await sendStatus(request, MAIN_STATUS, request.post, undefined, {
        counted: true,
      });
      progress.statusId = main.id;
      progress.statusUrl = main.url;
    }
    const statusId = progress.statusId;
    const published = publishedAs(statusId, progress.statusUrl);
    const thread = request.post.thread;
    if (thread.length === 0) return published;
    if (stored?.statusId !== statusId) await save();
    const soFar = () => ({ ...published, threadPostIds: [...progress.threadIds] });
    return afterMainPost(request.signal, soFar, async () => {
      for (let index = progress.threadIds.length; index < thread.length; index++) {
        const part = thread[index] as ThreadPart;
        const previous = progress.threadIds[index - 1] ?? statusId;
        const reply = await sendStatus(request, `${FOLLOW_UP}${index}`, part, previous);
        progress.threadIds.push(reply.id);
        await save();
      }
      return soFar();
    });
  }

  const publisher = progressPublisher({
    platform: 'mastodon',
    validate: validateMastodon,
    readProgress,
    run,
    // Mastodon has no comments: the first comment is the first reply to the status.
    comment: {
      label: LABEL,
      send: async (request, postId, message) => {
        const reply = { content: message, mediaUrls: [] };
        return (await sendStatus(request, FIRST_COMMENT, reply, postId, { underIntent: true })).id;
      },
    },
  });
  return { ...publisher, validateFor: (draft, data) => validateForInstance(draft, data) };
}

const publishedAs = (id: string, url: string | null) =>
  ({ kind: 'published', platformPostId: id, platformUrl: url }) satisfies PublishOutcome;

const tooLateToReplay = (intent: PublishIntent) =>
  failedOutcome(
    'outcome_unknown',
    `${LABEL} may or may not have received this status: a worker stopped after sending it (step ${intent.step} at ${intent.at.toISOString()}), and the instance remembers its Idempotency-Key for an hour only, so sending it again now could post it twice. Check the account, and publish again only if it is not there`,
    false,
  );
